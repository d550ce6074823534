import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { loadConfig } from '../src/config.ts';
import { buildOpenApiDocument, EXTENSIONS_TAG, serverUrl, type OpenApiDocument, type OpenApiOperation } from '../src/openapi/document.ts';
import { SchemaConverter, type JsonSchema } from '../src/openapi/json-schema.ts';
import { restRoutes } from '../src/rest/routes/index.ts';
import { startTestEnv, type TestEnv } from './helpers/env.ts';
import { send } from './helpers/http.ts';
import { ContractChecker, type Exchange } from './helpers/openapi-validate.ts';

/** The spec's 18 operations (Endpoints table): method, versioned path, success status. */
const SPEC_OPERATIONS = [
  [1, 'POST', '/v2/clients/{client_id}/invoices', 201],
  [2, 'POST', '/v2/time-entries', 201],
  [3, 'POST', '/v1/time_entry', 200],
  [4, 'POST', '/v2/projects/{project_id}/project-users', 201],
  [5, 'POST', '/v1/projects/{project_id}/project_users', 200],
  [6, 'GET', '/v1/projects/{project_id}/project_users', 200],
  [7, 'POST', '/v2/clients/{client_id}/recipients', 201],
  [8, 'PUT', '/v1/clients/{client_id}/recipients/{recipient_id}', 200],
  [9, 'DELETE', '/v1/clients/{client_id}/recipients/{recipient_id}', 200],
  [10, 'PATCH', '/v1/projects/{project_id}', 200],
  [11, 'POST', '/v1/projects', 200],
  [12, 'POST', '/v1/projects/update_status', 200],
  [13, 'GET', '/v1/clients/{client_id}', 200],
  [14, 'PUT', '/v1/clients/{client_id}', 200],
  [15, 'POST', '/v1/clients/update_status', 204],
  [16, 'GET', '/v2/team-members', 200],
  [17, 'GET', '/v1/team_members', 200],
  [18, 'PATCH', '/v1/team_members/{team_member_id}', 200],
] as const;

/** The operations the vendor publishes beyond the 18 (route table rows marked `extension`). */
const EXTENSION_OPERATIONS = [
  ['POST', '/v1/clients', 200],
  ['PATCH', '/v2/clients/{client_id}', 200],
  ['GET', '/v1/projects/{project_id}', 200],
  ['PATCH', '/v1/projects/{project_id}/project_users/{project_user_id}', 200],
  ['PATCH', '/v2/projects/{project_id}/project-users/{project_user_id}', 200],
  ['POST', '/v1/clients/{client_id}/invoices', 200],
] as const;

const specKeys = SPEC_OPERATIONS.map(([, method, path, status]) => `${method} ${path} ${status}`).sort();
const extensionKeys = EXTENSION_OPERATIONS.map(([method, path, status]) => `${method} ${path} ${status}`).sort();
const keyOf = (method: string, path: string, status: unknown) => `${method} ${path} ${status}`;

const config = loadConfig({});
const doc = buildOpenApiDocument(restRoutes, config);

function operations(document: OpenApiDocument): { method: string; path: string; op: OpenApiOperation }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, op: op as OpenApiOperation })),
  );
}

const successStatus = (op: OpenApiOperation) => Object.keys(op.responses).find((s) => s.startsWith('2'));

describe('the generated OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('2.0.0');
  });

  it('lists exactly the 18 operations of the spec plus the extensions, and so does the route table', () => {
    const documented = operations(doc);
    const spec = documented.filter(({ op }) => op['x-spec-endpoint'] !== undefined);
    const extensions = documented.filter(({ op }) => op['x-extension'] === true);
    expect(spec.length + extensions.length).toBe(documented.length);
    expect(spec.map(({ method, path, op }) => keyOf(method, path, successStatus(op))).sort()).toEqual(specKeys);
    expect(extensions.map(({ method, path, op }) => keyOf(method, path, successStatus(op))).sort()).toEqual(extensionKeys);
    // Each spec operation carries its own endpoint number.
    for (const { method, path, op } of spec) {
      const row = SPEC_OPERATIONS.find(([n]) => n === op['x-spec-endpoint'])!;
      expect(keyOf(method, path, successStatus(op)), op.operationId).toBe(keyOf(row[1], row[2], row[3]));
    }

    const tableSpec = restRoutes.filter((r) => !r.extension);
    const tableExtensions = restRoutes.filter((r) => r.extension);
    expect(tableSpec.map((r) => keyOf(r.method, `/${r.version}${r.path}`, r.status)).sort()).toEqual(specKeys);
    expect(tableExtensions.map((r) => keyOf(r.method, `/${r.version}${r.path}`, r.status)).sort()).toEqual(extensionKeys);
    expect(tableSpec.map((r) => r.endpoint).sort((a, b) => a! - b!)).toEqual(SPEC_OPERATIONS.map(([n]) => n));
    for (const r of tableSpec) {
      const row = SPEC_OPERATIONS.find(([n]) => n === r.endpoint)!;
      expect(keyOf(r.method, `/${r.version}${r.path}`, r.status), `endpoint ${r.endpoint}`).toBe(keyOf(row[1], row[2], row[3]));
    }
  });

  it('puts every extension, and only the extensions, under their own tag', () => {
    const tagged = operations(doc).filter(({ op }) => op.tags[0] === EXTENSIONS_TAG);
    expect(tagged.map(({ op }) => op.operationId).sort()).toEqual(restRoutes.filter((r) => r.extension).map((r) => r.operationId).sort());
    for (const { op } of tagged) expect(op.description).toMatch(/an extension beyond the specification's 18 operations/);
    expect(doc.tags.at(-1)).toEqual({ name: EXTENSIONS_TAG, description: expect.stringContaining('beyond') });
  });

  it('gives every operation a unique operationId, a summary, a tag and its version', () => {
    const ids = operations(doc).map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, op } of operations(doc)) {
      expect(op.summary, op.operationId).not.toBe('');
      expect(op.tags).toHaveLength(1);
      expect(doc.tags.map((t) => t.name)).toContain(op.tags[0]);
      const version = path.startsWith('/v1/') ? 'v1' : 'v2';
      expect(op['x-api-version']).toBe(version);
      expect(op.description).toMatch(version === 'v1' ? /^v1 \(the older version\)/ : /^v2 \(2\.0\.0\)/);
    }
  });

  it('requires the X-Api-Key scheme everywhere and names the server by its {subdomain}', () => {
    expect(doc.components.securitySchemes.ApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Api-Key' });
    expect(doc.security).toEqual([{ ApiKey: [] }]);
    expect(doc.servers).toEqual([
      expect.objectContaining({ url: 'http://{subdomain}.localhost:3000/api/external', variables: { subdomain: expect.objectContaining({ default: 'demo' }) } }),
    ]);
  });

  it('builds the server URL from PUBLIC_URL, or from BASE_DOMAIN and PORT when it has no {subdomain}', () => {
    expect(serverUrl(loadConfig({ PUBLIC_URL: 'https://{subdomain}.hourbook.example.com/' }))).toBe('https://{subdomain}.hourbook.example.com/api/external');
    expect(serverUrl(loadConfig({ PUBLIC_URL: 'https://billing.example.com', BASE_DOMAIN: 'hb.example.com', PORT: '8080' }))).toBe(
      'http://{subdomain}.hb.example.com:8080/api/external',
    );
  });

  it('documents path parameters as required strings, and every path parameter of the path', () => {
    for (const { path, op } of operations(doc)) {
      const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const inPath = op.parameters.filter((p) => p.in === 'path');
      expect(inPath.map((p) => p.name), op.operationId).toEqual(names);
      for (const p of inPath) expect(p).toMatchObject({ required: true, schema: { type: 'string' } });
    }
  });

  it('documents the query of the team member listings, optional, and no body for reads', () => {
    for (const path of ['/v2/team-members', '/v1/team_members']) {
      const op = doc.paths[path]?.get as OpenApiOperation;
      expect(op.parameters.filter((p) => p.in === 'query').map((p) => [p.name, p.required])).toEqual([
        ['email', false],
        ['page_number', false],
        ['page_size', false],
      ]);
      expect(op.requestBody).toBeUndefined();
    }
  });

  it('derives a request body from the procedure input without the path parameters', () => {
    const op = doc.paths['/v1/team_members/{team_member_id}']?.patch as OpenApiOperation;
    const schema = op.requestBody?.content['application/json'].schema as { properties: Record<string, unknown>; required?: string[] };
    expect(Object.keys(schema.properties).sort()).toEqual(['active', 'email', 'first_name', 'last_name', 'organization_role', 'time_zone']);
    expect(schema.required).toBeUndefined();
    expect(op.requestBody?.required).toBe(false);
  });

  it('describes the success body of every operation (a 204 without content)', () => {
    for (const { op } of operations(doc)) {
      const status = successStatus(op) as string;
      const response = op.responses[status] as { content?: { 'application/json': { schema: object } } };
      if (status === '204') expect(response.content, op.operationId).toBeUndefined();
      else expect(Object.keys(response.content?.['application/json'].schema ?? {}), `${op.operationId}: response schema is empty`).not.toEqual([]);
    }
  });

  it('gives every row that reshapes the output (toBody) the responseBody it produces', () => {
    const missing = restRoutes.filter((r) => r.toBody && !r.responseBody && r.status !== 204).map((r) => `${r.endpoint} ${r.operationId}`);
    expect(missing).toEqual([]);
  });

  it('documents the error envelope for every error an operation can answer', () => {
    for (const { method, op } of operations(doc)) {
      const statuses = Object.keys(op.responses).filter((s) => !s.startsWith('2'));
      const expected = ['400', '401', '404', '422', '429', '500'];
      if (['POST', 'PUT', 'PATCH'].includes(method)) expected.push('413', '415');
      if (method !== 'GET') expected.push('409');
      for (const s of expected) expect(statuses, `${op.operationId} documents ${s}`).toContain(s);
      for (const s of statuses) expect(op.responses[s], op.operationId).toEqual({ $ref: expect.stringMatching(/^#\/components\/responses\//) });
    }
    expect(doc.components.schemas.Error).toMatchObject({ type: 'object', required: ['error', 'code'] });
    expect(doc.components.responses.RateLimited?.headers?.['Retry-After']).toBeDefined();
  });

  it('documents 406 and the Accept rule for endpoints 16-18 only', () => {
    for (const { op } of operations(doc)) {
      const requiresAccept = [16, 17, 18].includes(op['x-spec-endpoint'] ?? 0);
      expect('406' in op.responses, op.operationId).toBe(requiresAccept);
      expect(op.description.includes('Accept: application/json'), op.operationId).toBe(requiresAccept);
    }
  });

  it('states the formats of ids, dates, date-times and e-mail addresses in responses', () => {
    const body = (path: string, method: 'get' | 'post' | 'patch' | 'put', status: string) =>
      (doc.paths[path]?.[method] as OpenApiOperation).responses[status] as { content: { 'application/json': { schema: JsonSchema } } };
    const props = (schema: JsonSchema) => schema.properties as Record<string, JsonSchema>;
    for (const [path, status] of [['/v2/time-entries', '201'], ['/v1/time_entry', '200']] as const) {
      const entry = props(body(path, 'post', status).content['application/json'].schema);
      expect(entry.id).toMatchObject({ type: 'string', format: 'uuid' });
      expect(entry.task_id).toMatchObject({ format: 'uuid' });
      expect(entry.user_email).toMatchObject({ format: 'email' });
      expect(entry.recorded_on).toMatchObject({ format: 'date' });
      expect(entry.created_at).toMatchObject({ type: 'string', format: 'date-time' });
    }
    const invoice = props(props(body('/v2/clients/{client_id}/invoices', 'post', '201').content['application/json'].schema).invoice as JsonSchema);
    expect(invoice.issue_date).toMatchObject({ format: 'date' });
    expect(invoice.client_id).toMatchObject({ format: 'uuid' });
    const client = props(body('/v1/clients/{client_id}', 'get', '200').content['application/json'].schema);
    const recipient = props((client.recipients as JsonSchema).items as JsonSchema);
    // A recipient made outside a request has no creator: the id is a UUID or null.
    expect(recipient.creator_id).toEqual({ anyOf: [{ type: 'string', format: 'uuid' }, { type: 'null' }] });
    expect(recipient.email).toMatchObject({ format: 'email' });
  });

  it('documents the notice of each project write: project_updated for endpoint 10, project_created for 11', () => {
    const notice = (path: string, method: 'post' | 'patch') => {
      const response = (doc.paths[path]?.[method] as OpenApiOperation).responses['200'] as { content: { 'application/json': { schema: JsonSchema } } };
      return (response.content['application/json'].schema.properties as Record<string, JsonSchema>).notice_code;
    };
    expect(notice('/v1/projects/{project_id}', 'patch')).toEqual({ type: 'string', const: 'project_updated' });
    expect(notice('/v1/projects', 'post')).toEqual({ type: 'string', const: 'project_created' });
  });

  it('documents 403 on every operation: an acting user (email) or a personal key’s member may be refused', () => {
    const createRecipient = doc.paths['/v2/clients/{client_id}/recipients']?.post as OpenApiOperation;
    expect(createRecipient.responses['403']).toBeDefined();
    const listMembers = doc.paths['/v2/team-members']?.get as OpenApiOperation;
    expect(listMembers.responses['403']).toBeDefined();
  });
});

describe('zod to JSON Schema', () => {
  it('degrades what JSON cannot express to an unconstrained schema instead of failing', () => {
    const c = new SchemaConverter();
    const out = c.convert(z.object({ at: z.date(), n: z.string().transform(Number) }), 'output');
    expect(out).toMatchObject({ type: 'object', properties: { at: {}, n: {} } });
    expect(c.convert(z.object({ n: z.string().transform(Number) }), 'input')).toMatchObject({ properties: { n: { type: 'string' } } });
  });

  it('hoists schemas with an id into components, renaming when input and output differ', () => {
    const c = new SchemaConverter();
    const shared = z.object({ rate: z.number().default(0) }).meta({ id: 'Rate' });
    expect(c.convert(z.object({ a: shared }), 'output')).toMatchObject({ properties: { a: { $ref: '#/components/schemas/Rate' } } });
    expect(c.convert(z.object({ a: shared }), 'input')).toMatchObject({ properties: { a: { $ref: '#/components/schemas/RateInput' } } });
    expect(c.components.Rate).toMatchObject({ required: ['rate'] });
    expect(c.components.RateInput?.required).toBeUndefined();
  });
});

describe('GET /api/external/openapi.json', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await startTestEnv();
  });
  afterAll(() => env.close());

  it('serves the document without a key, on any host, headed by a server for the address it was read from', async () => {
    const built = JSON.parse(JSON.stringify(buildOpenApiDocument(restRoutes, env.config))) as OpenApiDocument;
    const port = new URL(env.url).port;
    const cases: [string, unknown[]][] = [
      // A workspace host: that workspace, same-origin.
      [env.alpha.host, [{ url: '/api/external', description: expect.stringContaining('This workspace') }]],
      ['nowhere.localhost', [{ url: '/api/external', description: expect.any(String) }]],
      // The bare host the demo prints: a workspace of that host and port by its subdomain.
      [`localhost:${port}`, [{ url: `http://{subdomain}.localhost:${port}/api/external`, description: expect.any(String), variables: { subdomain: { default: 'demo', description: expect.any(String) } } }]],
      // Anything else: the configured server only.
      ['elsewhere.example.com', []],
    ];
    for (const [host, first] of cases) {
      const res = await send(env.url, 'GET', '/api/external/openapi.json', { host });
      expect(res.status, host).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body, host).toEqual({ ...built, servers: [...first, ...built.servers] });
    }
  });
});

describe('example values the reference shows', () => {
  it('never states the safe-integer bounds zod puts on every integer', () => {
    expect(JSON.stringify(doc)).not.toMatch(/9007199254740991/);
  });

  it('gives every error response a real example that its own schema accepts', () => {
    const checker = new ContractChecker(doc);
    for (const [name, response] of Object.entries(doc.components.responses)) {
      const example = response.content?.['application/json'].example as { code: string; error: string } | undefined;
      expect(example, name).toMatchObject({ code: expect.stringMatching(/^[a-z_]+$/), error: expect.any(String) });
      const status = Object.entries(doc.paths['/v1/clients/{client_id}']?.put?.responses ?? {}).find(([, r]) => (r as { $ref?: string }).$ref?.endsWith(`/${name}`))?.[0];
      if (!status || status === '406') continue;
      const raw = Buffer.from(JSON.stringify(example));
      expect(() => checker.check({ method: 'PUT', path: '/api/external/v1/clients/x', requestHeaders: {}, requestBody: undefined, status: Number(status), responseHeaders: { 'content-type': 'application/json' }, raw, body: example }), name).not.toThrow();
    }
  });
});

describe('the contract check every REST test runs', () => {
  const checker = new ContractChecker(doc);
  const json = (value: unknown) => Buffer.from(JSON.stringify(value));
  const exchange = (over: Partial<Exchange>): Exchange => ({
    method: 'GET',
    path: '/api/external/v2/team-members',
    requestHeaders: {},
    requestBody: undefined,
    status: 200,
    responseHeaders: { 'content-type': 'application/json; charset=utf-8' },
    raw: Buffer.alloc(0),
    body: undefined,
    ...over,
  });
  const member = { id: '3f1c9a52-7d4e-4b8a-9c21-5e6f7a8b9c0d', email: 'a@b.test', first_name: 'A', last_name: 'B', time_zone: 'UTC', profile_image_url: '', active: true, organization_role: 'Owner' };
  const page = { team_members: [member], pagination: { total_records: 1, total_pages: 1, current_page: 1, page_size: 1 } };

  it('accepts a conforming response', () => {
    expect(() => checker.check(exchange({ raw: json(page), body: page }))).not.toThrow();
    expect(() => checker.check(exchange({ path: '/api/external/v1/team_members?page_number=1', raw: json(page), body: page }))).not.toThrow();
  });

  it('rejects a body of another shape, naming the operation and the field', () => {
    const bad = { ...page, team_members: [{ ...member, active: 'yes' }] };
    expect(() => checker.check(exchange({ raw: json(bad), body: bad }))).toThrow(/listTeamMembersV2.*200.*team_members\/0\/active must be boolean/);
    const extra = { ...page, secret: 1 };
    expect(() => checker.check(exchange({ raw: json(extra), body: extra }))).toThrow(/must NOT have additional properties/);
  });

  it('rejects a value that breaks a documented format', () => {
    const notUuid = { ...page, team_members: [{ ...member, id: 'm1' }] };
    expect(() => checker.check(exchange({ raw: json(notUuid), body: notUuid }))).toThrow(/team_members\/0\/id must match format "uuid"/);
    const notEmail = { ...page, team_members: [{ ...member, email: 'nobody' }] };
    expect(() => checker.check(exchange({ raw: json(notEmail), body: notEmail }))).toThrow(/team_members\/0\/email must match format "email"/);
  });

  it('rejects a status the document does not list', () => {
    const body = { error: 'nope', code: 'conflict_here' };
    expect(() => checker.check(exchange({ status: 409, raw: json(body), body }))).toThrow(/answered 409, which the OpenAPI document does not list/);
  });

  it('rejects an error outside the envelope, or with a code its status never carries', () => {
    expect(() => checker.check(exchange({ status: 401, raw: json({ message: 'no' }), body: { message: 'no' } }))).toThrow(/must have required property/);
    const wrong = { error: 'x', code: 'forbidden' };
    expect(() => checker.check(exchange({ status: 401, raw: json(wrong), body: wrong }))).toThrow(/code must be equal to one of the allowed values/);
  });

  it('rejects a JSON status answered with another content type', () => {
    expect(() => checker.check(exchange({ responseHeaders: { 'content-type': 'text/html' }, raw: json(page), body: page }))).toThrow(/not application\/json/);
  });

  it('rejects a success on a path or method that is not an operation, and checks their errors', () => {
    expect(() => checker.check(exchange({ method: 'DELETE', raw: json(page), body: page }))).toThrow(/not a documented operation/);
    const envelope = { error: 'DELETE is not allowed here; use GET', code: 'method_not_allowed', allow: ['GET'] };
    expect(() => checker.check(exchange({ method: 'DELETE', status: 405, raw: json(envelope), body: envelope }))).not.toThrow();
    expect(() => checker.check(exchange({ method: 'DELETE', status: 405, raw: json({ oops: 1 }), body: { oops: 1 } }))).toThrow(/error envelope/);
  });

  it('rejects an accepted request body that the document does not describe', () => {
    const path = `/api/external/v1/team_members/${member.id}`;
    const ok = { team_member: member };
    expect(() => checker.check(exchange({ method: 'PATCH', path, requestBody: json({ first_name: 'A' }), raw: json(ok), body: ok }))).not.toThrow();
    expect(() => checker.check(exchange({ method: 'PATCH', path, requestBody: json({ active: 'yes' }), raw: json(ok), body: ok }))).toThrow(
      /accepted a request body the document does not allow: request\/active must be boolean/,
    );
  });

  it('ignores what is not the REST API', () => {
    expect(() => checker.check(exchange({ path: '/trpc/teamMembers.list', status: 418, body: { whatever: true } }))).not.toThrow();
    expect(() => checker.check(exchange({ path: '/api/external/openapi.json', raw: json(doc), body: doc }))).not.toThrow();
  });

  it('accepts a 204 only without content', () => {
    const path = '/api/external/v1/clients/update_status';
    const requestBody = json({ client_ids: ['00000000-0000-4000-8000-000000000000'], status: 'archived' });
    expect(() => checker.check(exchange({ method: 'POST', path, status: 204, requestBody }))).not.toThrow();
    expect(() => checker.check(exchange({ method: 'POST', path, status: 204, requestBody, raw: Buffer.from('{}'), body: {} }))).toThrow(/without content, with a body/);
  });
});
