import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { loadConfig } from '../../src/config.ts';
import { buildOpenApiDocument, type OpenApiDocument, type OpenApiMethod, type OpenApiOperation, type OpenApiResponse } from '../../src/openapi/document.ts';
import { restRoutes } from '../../src/rest/routes/index.ts';

// ajv-formats is CommonJS with `exports.default`; under NodeNext the default import is the module.
const addFormats = addFormatsPlugin as unknown as typeof addFormatsPlugin.default;

const PREFIX = '/api/external';
const COMPONENTS_ID = 'hourbook-openapi-components';

/** One exchange as the test client saw it. */
export interface Exchange {
  method: string;
  /** The request path, with or without a query string. */
  path: string;
  requestHeaders: Record<string, string>;
  /** The raw bytes sent, if any. */
  requestBody: Buffer | undefined;
  status: number;
  responseHeaders: Record<string, string | string[] | undefined>;
  raw: Buffer;
  body: unknown;
}

interface Template {
  path: string;
  pattern: RegExp;
  params: number;
  item: OpenApiDocument['paths'][string];
}

/**
 * The generated OpenAPI document turned into ajv validators, so every REST response a test sees is
 * checked against the contract integrators read: documented operation, documented status, body of
 * the documented shape. Built once per test worker from the same function the server uses.
 */
export class ContractChecker {
  private readonly ajv: Ajv2020;
  private readonly templates: Template[];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly document: OpenApiDocument) {
    this.ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictTuples: false });
    addFormats(this.ajv);
    // OpenAPI 3.1's own keywords beside JSON Schema's, and zod's string formats ajv-formats lacks.
    this.ajv.addVocabulary(['discriminator', 'xml', 'externalDocs', 'example']);
    for (const format of ['cuid', 'cuid2', 'ulid', 'nanoid', 'xid', 'ksuid', 'e164', 'jwt', 'emoji', 'base64', 'base64url', 'cidrv4', 'cidrv6', 'mac']) {
      if (!(format in this.ajv.formats)) this.ajv.addFormat(format, true);
    }
    this.ajv.addSchema({ $id: COMPONENTS_ID, $defs: toAjvRefs(document.components.schemas) as object });
    this.templates = Object.entries(document.paths)
      .map(([path, item]) => ({
        path,
        item,
        params: (path.match(/\{/g) ?? []).length,
        pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}/g, '[^/]+')}/?$`),
      }))
      // Literal segments win, as in the router: `/clients/update_status` before `/clients/{client_id}`.
      .sort((a, b) => a.params - b.params);
  }

  /** Throws an error naming the operation, the status and what is wrong; returns when it conforms. */
  check(exchange: Exchange): void {
    const pathname = new URL(exchange.path, 'http://x').pathname;
    if (!/^\/api\/external\/v[12](?:\/|$)/.test(pathname)) return;
    // A CORS preflight is the browser asking, not an operation: answered with headers only.
    if (exchange.method === 'OPTIONS' && exchange.requestHeaders['access-control-request-method'] !== undefined) return;
    const relative = pathname.slice(PREFIX.length);
    // HEAD is GET without the body (RFC 9110 §9.3.2): the document describes GET, and HEAD answers
    // only its status and headers.
    const head = exchange.method === 'HEAD';
    const method = (head ? 'get' : exchange.method.toLowerCase()) as OpenApiMethod;
    const matches = this.templates.filter((t) => t.pattern.test(relative));
    const template = matches.find((t) => t.item[method] !== undefined);
    const operation = template?.item[method];
    const what = operation && template ? `${exchange.method} ${template.path} (${operation.operationId})` : `${exchange.method} ${relative}`;

    if (!operation) {
      // Not an operation (wrong method, unknown path): only an error in the envelope is right.
      if (exchange.status < 400) fail(`${what} is not a documented operation, yet it answered ${exchange.status}`);
      this.validateJson(`${COMPONENTS_ID}#/$defs/Error`, what, exchange, 'error envelope');
      return;
    }

    const response = this.responseOf(operation, exchange.status);
    if (!response) {
      const documented = Object.keys(operation.responses).join(', ');
      fail(`${what} answered ${exchange.status}, which the OpenAPI document does not list (documented: ${documented}). Body: ${exchange.raw.toString('utf8').slice(0, 500)}`);
    }
    if (head) {
      if (exchange.raw.length > 0) fail(`${what} answered HEAD with a body`);
      return;
    }
    const schema = response.content?.['application/json'].schema;
    if (!schema) {
      if (exchange.raw.length > 0) fail(`${what} answered ${exchange.status}, documented without content, with a body: ${exchange.raw.toString('utf8').slice(0, 200)}`);
    } else {
      this.validateJson(this.compileKey(operation, `response ${exchange.status}`, schema), what, exchange, `${exchange.status} body`);
    }
    if (exchange.status < 300) this.checkRequestBody(operation, what, exchange);
  }

  /**
   * A request the server accepted must fit the documented request body: otherwise the document
   * describes a body the API does not actually take (a row whose `toInput` reshapes it, say).
   */
  private checkRequestBody(operation: OpenApiOperation, what: string, exchange: Exchange): void {
    const documented = operation.requestBody;
    if (!documented) return;
    const sent = exchange.requestBody && exchange.requestBody.length > 0 ? exchange.requestBody.toString('utf8') : undefined;
    if (sent === undefined) {
      if (documented.required) fail(`${what} succeeded without a body, but the document marks its request body required`);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(sent);
    } catch {
      fail(`${what} accepted a body that is not JSON, which the document does not allow`);
    }
    const validate = this.validator(this.compileKey(operation, 'request', documented.content['application/json'].schema));
    if (!validate(value)) {
      fail(`${what} accepted a request body the document does not allow: ${this.ajv.errorsText(validate.errors, { dataVar: 'request' })}. Request: ${sent.slice(0, 500)}`);
    }
  }

  private responseOf(operation: OpenApiOperation, status: number): OpenApiResponse | undefined {
    const entry = operation.responses[String(status)];
    if (!entry) return undefined;
    if ('$ref' in entry) {
      const name = entry.$ref.replace('#/components/responses/', '');
      const resolved = this.document.components.responses[name];
      if (!resolved) fail(`The document refers to a missing response ${entry.$ref}`);
      return resolved;
    }
    return entry;
  }

  private compileKey(operation: OpenApiOperation, part: string, schema: object): string {
    const key = `${operation.operationId} ${part}`;
    if (!this.compiled.has(key)) this.compiled.set(key, this.ajv.compile(toAjvRefs(schema) as object));
    return key;
  }

  private validator(key: string): ValidateFunction {
    const compiled = this.compiled.get(key) ?? this.ajv.getSchema(key);
    if (!compiled) throw new Error(`no validator for ${key}`);
    return compiled;
  }

  private validateJson(key: string, what: string, exchange: Exchange, part: string): void {
    const type = String(exchange.responseHeaders['content-type'] ?? '');
    if (!/^application\/json\b/i.test(type)) fail(`${what} answered ${exchange.status} with Content-Type "${type}", not application/json`);
    if (exchange.body === undefined) fail(`${what} answered ${exchange.status} with a body that is not JSON: ${exchange.raw.toString('utf8').slice(0, 200)}`);
    const validate = this.validator(key);
    if (!validate(exchange.body)) {
      fail(
        `${what} answered ${exchange.status} with a ${part} the OpenAPI document does not allow: ` +
          `${this.ajv.errorsText(validate.errors, { dataVar: 'body', separator: '; ' })}. Body: ${JSON.stringify(exchange.body).slice(0, 500)}`,
      );
    }
  }
}

function fail(message: string): never {
  throw new Error(`OpenAPI contract: ${message}`);
}

/** Points `#/components/schemas/X` at the registered components schema. */
function toAjvRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toAjvRefs);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) =>
      key === '$ref' && typeof inner === 'string' && inner.startsWith('#/components/schemas/')
        ? [key, `${COMPONENTS_ID}#/$defs/${inner.slice('#/components/schemas/'.length)}`]
        : [key, toAjvRefs(inner)],
    ),
  );
}

let shared: ContractChecker | undefined;

/** The checker for the document the server builds at start (the server URL does not matter here). */
export function contractChecker(): ContractChecker {
  shared ??= new ContractChecker(buildOpenApiDocument(restRoutes, loadConfig({})));
  return shared;
}
