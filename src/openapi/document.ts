import type * as z from 'zod';
import type { Config } from '../config.ts';
import type { RestRoute } from '../rest/types.ts';
import { errorSchemaFor, errorStatuses, errorStatusesOf, errorEnvelope, hasRequestBody, type DocumentedErrorStatus } from './errors.ts';
import { isEmptyObjectSchema, mergeObjectSchemas, omitProperties, propertiesOf, SchemaConverter, type JsonSchema } from './json-schema.ts';
import { procedureSchemas } from '../trpc/procedure-schemas.ts';

/** The version the spec gives the v2 interface; v1 operations are the older version. */
export const API_VERSION = '2.0.0';
export const API_KEY_SCHEME = 'ApiKey';

export type OpenApiMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description?: string;
  schema: JsonSchema;
}

export interface OpenApiResponse {
  description: string;
  headers?: Record<string, { description: string; schema: JsonSchema }>;
  content?: { 'application/json': { schema: JsonSchema; example?: unknown } };
}

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  deprecated: false;
  parameters: OpenApiParameter[];
  requestBody?: { required: boolean; content: { 'application/json': { schema: JsonSchema } } };
  responses: Record<string, OpenApiResponse | { $ref: string }>;
  'x-api-version': 'v1' | 'v2';
  /** The spec's endpoint number (1-18); extensions have none. */
  'x-spec-endpoint'?: number;
  /** An operation the vendor publishes beyond the spec's 18. */
  'x-extension'?: true;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: { url: string; description: string; variables?: Record<string, { default: string; description: string }> }[];
  security: Record<string, string[]>[];
  tags: { name: string; description?: string }[];
  paths: Record<string, Partial<Record<OpenApiMethod, OpenApiOperation>>>;
  components: {
    securitySchemes: Record<string, { type: 'apiKey'; in: 'header'; name: string; description: string }>;
    schemas: Record<string, JsonSchema>;
    responses: Record<string, OpenApiResponse>;
  };
}

export const documentPath = (route: Pick<RestRoute, 'version' | 'path'>) => `/${route.version}${route.path}`;
export const pathParamsOf = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);

/**
 * The server URL with the workspace as the `{subdomain}` variable: PUBLIC_URL when it names
 * `{subdomain}`, else `http://{subdomain}.<BASE_DOMAIN>:<PORT>`.
 */
export function serverUrl(config: Pick<Config, 'publicUrl' | 'baseDomain' | 'port'>): string {
  const base = config.publicUrl.includes('{subdomain}') ? config.publicUrl : `http://{subdomain}.${config.baseDomain}:${config.port}`;
  return `${base.replace(/\/+$/, '')}/api/external`;
}

const INFO_DESCRIPTION = [
  'The external REST API of one hourbook workspace. The workspace is the subdomain of the host; every',
  'operation needs the workspace API key in `X-Api-Key`.',
  '',
  'Operations under `/v2` are version 2.0.0; operations under `/v1` are the older version, still served.',
  '',
  'Every error answers `{"error": "<message>", "code": "<snake_case>", "details": [{"path", "message"}]}`',
  '(`details` only for validation failures); branch on `code`.',
].join('\n');

/** The one tag of every operation beyond the spec's 18, so a reader sees at once what is extra. */
export const EXTENSIONS_TAG = 'Extensions (beyond the published 18 operations)';
const EXTENSIONS_DESCRIPTION =
  "Operations the vendor's public documentation shows beyond the specification's 18, served over the same procedures with the same authentication, role rules and error envelope.";

const tagOf = (route: RestRoute) => route.tag ?? EXTENSIONS_TAG;

function describe(route: RestRoute): string {
  const version = route.version === 'v1' ? 'v1 (the older version)' : `v2 (${API_VERSION})`;
  const origin = route.extension
    ? "an extension beyond the specification's 18 operations (the vendor's documentation publishes it)."
    : `endpoint ${route.endpoint} of the specification.`;
  const lines = [`${version} — ${origin}`];
  if (route.requireJsonAccept) lines.push('', 'Requires the header `Accept: application/json`; without it the answer is 406 `not_acceptable`.');
  return lines.join('\n');
}

/** Every write takes an optional idempotency key (docs/idempotency.md). */
const IDEMPOTENCY_KEY_PARAMETER: OpenApiParameter = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: a repeat with the same key, method, path and body within 24 hours gets the first answer again (with `Idempotent-Replayed: true`) instead of running twice. ' +
    'The same key with another request: 422 `idempotency_key_reused`; while the first is still running: 409 `idempotency_key_in_use` (retry after `Retry-After`). Successes and 4xx answers are kept; 409, 429 and 5xx are not.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$', example: '4f6c2a9e-0d1b-4c7e-9a53-2b8f1e6d7c40' },
};

const BOUNDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'] as const;

/**
 * A query parameter as the API enforces it. The route reads the query string as strings; where the
 * procedure's input reads a number from it (`page_number`, `page_size`), the parameter is that
 * number: its type from the input side (an integer) and its bounds from the parsed side (1-100),
 * which zod states only after its pipe. Otherwise the route's own schema.
 */
function querySchemaOf(routeSchema: JsonSchema, input: JsonSchema | undefined, parsed: JsonSchema | undefined): JsonSchema {
  if (input?.type !== 'integer' && input?.type !== 'number') return routeSchema;
  const schema: JsonSchema = { ...input };
  for (const key of BOUNDS) if (schema[key] === undefined && typeof parsed?.[key] === 'number') schema[key] = parsed[key];
  return schema;
}

/** The path and query parameters of a route, described by the procedure's input where it says more. */
function parametersOf(route: RestRoute, inputs: readonly z.ZodType[], inputProperties: Record<string, JsonSchema>, converter: SchemaConverter) {
  const parameters: OpenApiParameter[] = pathParamsOf(route.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    ...describedBy(inputProperties[name]),
    schema: { type: 'string' },
  }));
  const querySchema = route.query ? converter.convert(route.query, 'input') : { properties: {} };
  const queryRequired = new Set((querySchema.required ?? []) as string[]);
  const queryNames: string[] = [];
  // The parsed side is read for its bounds only: a converter of its own, so it adds no components.
  const parsedProperties = route.query ? propertiesOf(mergeObjectSchemas(inputs.map((s) => new SchemaConverter().convert(s, 'output')))) : {};
  for (const [name, routeSchema] of Object.entries((querySchema.properties ?? {}) as Record<string, JsonSchema>)) {
    queryNames.push(name);
    const schema = querySchemaOf(routeSchema, inputProperties[name], parsedProperties[name]);
    parameters.push({ name, in: 'query', required: queryRequired.has(name), ...describedBy(routeSchema, inputProperties[name]), schema });
  }
  return { parameters, queryNames };
}

/** One operation of the document; the error statuses it may answer are added to `usedErrors`. */
function operationOf(route: RestRoute, converter: SchemaConverter, usedErrors: Set<DocumentedErrorStatus>): OpenApiOperation {
  const procedure = procedureSchemas(route.procedure);
  const input = mergeObjectSchemas(procedure.inputs.map((s) => converter.convert(s, 'input')));
  const { parameters, queryNames } = parametersOf(route, procedure.inputs, propertiesOf(input), converter);
  if (route.method !== 'GET') parameters.push(IDEMPOTENCY_KEY_PARAMETER);
  const operation: OpenApiOperation = {
    operationId: route.operationId,
    summary: route.summary,
    description: describe(route),
    tags: [tagOf(route)],
    deprecated: false,
    parameters,
    responses: {},
    'x-api-version': route.version,
    ...(route.extension ? { 'x-extension': true as const } : { 'x-spec-endpoint': route.endpoint }),
  };
  if (hasRequestBody(route)) {
    const body = route.body ? converter.convert(route.body, 'input') : omitProperties(input, [...pathParamsOf(route.path), ...queryNames]);
    if (!isEmptyObjectSchema(body)) {
      const required = Array.isArray(body.required) && body.required.length > 0;
      operation.requestBody = { required, content: { 'application/json': { schema: body } } };
    }
  }
  operation.responses[String(route.status)] = successResponse(route, procedure.output, converter);
  for (const status of errorStatusesOf(route)) {
    usedErrors.add(status);
    operation.responses[String(status)] = { $ref: `#/components/responses/${errorStatuses[status].name}` };
  }
  return operation;
}

const RETRY_AFTER: Record<number, string> = {
  429: 'Seconds to wait before retrying',
  503: 'Seconds to wait before retrying (the workspace is paused while its file is copied)',
  409: 'With `idempotency_key_in_use` only: seconds to wait before retrying with the same key',
};

/** The error envelopes and shared responses of the statuses the operations use. */
function errorComponents(usedErrors: Set<DocumentedErrorStatus>, converter: SchemaConverter) {
  const schemas: Record<string, JsonSchema> = { Error: converter.convert(errorEnvelope, 'output') };
  const responses: Record<string, OpenApiResponse> = {};
  for (const status of [...usedErrors].sort((a, b) => a - b)) {
    const { name, description, example } = errorStatuses[status];
    schemas[`${name}Error`] = converter.convert(errorSchemaFor(status), 'output');
    responses[name] = {
      description,
      ...(RETRY_AFTER[status] ? { headers: { 'Retry-After': { description: RETRY_AFTER[status], schema: { type: 'integer', minimum: 1 } } } } : {}),
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}Error` }, example } },
    };
  }
  return { schemas, responses };
}

/**
 * The OpenAPI 3.1 document of both versions, generated from the REST route table and the zod
 * schemas the procedures are declared with: the contract cannot drift from the code that serves it.
 */
export function buildOpenApiDocument(routes: readonly RestRoute[], config: Pick<Config, 'publicUrl' | 'baseDomain' | 'port'>): OpenApiDocument {
  const converter = new SchemaConverter();
  const usedErrors = new Set<DocumentedErrorStatus>();
  const paths: OpenApiDocument['paths'] = {};
  const tags: string[] = [];
  for (const route of routes) {
    const method = route.method.toLowerCase() as OpenApiMethod;
    const key = documentPath(route);
    const item = (paths[key] ??= {});
    if (item[method]) throw new Error(`The REST route table has two rows for ${route.method} ${key}`);
    item[method] = operationOf(route, converter, usedErrors);
    if (!tags.includes(tagOf(route))) tags.push(tagOf(route));
  }
  const errors = errorComponents(usedErrors, converter);
  return {
    openapi: '3.1.0',
    info: { title: 'hourbook external API', version: API_VERSION, description: INFO_DESCRIPTION },
    servers: [
      {
        url: serverUrl(config),
        description: 'One workspace; its subdomain selects it.',
        variables: { subdomain: { default: 'demo', description: 'The workspace subdomain' } },
      },
    ],
    security: [{ [API_KEY_SCHEME]: [] }],
    tags: tags.map((name) => (name === EXTENSIONS_TAG ? { name, description: EXTENSIONS_DESCRIPTION } : { name })),
    paths,
    components: {
      securitySchemes: {
        [API_KEY_SCHEME]: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'A key of the workspace named by the host.' },
      },
      schemas: { ...converter.components, ...errors.schemas },
      responses: errors.responses,
    },
  };
}

function successResponse(route: RestRoute, output: unknown, converter: SchemaConverter): OpenApiResponse {
  if (route.status === 204) return { description: 'Done; no content.', ...replayHeader(route) };
  let schema: JsonSchema;
  if (route.responseBody) schema = converter.convert(route.responseBody, 'output');
  // A row that reshapes the output without saying into what cannot be described; the document
  // still builds (the server must start) and test/openapi.test.ts names the row.
  else if (route.toBody || output === undefined) schema = {};
  else schema = converter.convert(output as Parameters<SchemaConverter['convert']>[0], 'output');
  return { description: route.status === 201 ? 'Created.' : 'OK.', ...replayHeader(route), content: { 'application/json': { schema } } };
}

/** A write's success may be the stored answer of an earlier request with the same idempotency key. */
function replayHeader(route: RestRoute): Pick<OpenApiResponse, 'headers'> {
  if (route.method === 'GET') return {};
  return { headers: { 'Idempotent-Replayed': { description: 'Present (`true`) when this is the stored answer of an earlier request with the same `Idempotency-Key`.', schema: { type: 'string', enum: ['true'] } } } };
}

function describedBy(...schemas: (JsonSchema | undefined)[]): { description?: string } {
  for (const s of schemas) if (typeof s?.description === 'string') return { description: s.description };
  return {};
}
