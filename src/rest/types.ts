import type * as z from 'zod';
import type { ProcedurePath } from '../trpc/router.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Whether requests of this method carry a body the operation reads. A body sent with GET or DELETE
 * is not read at all: no operation of the contract takes one, and reading it would let it fail the
 * request (400, 413, 415) or slip fields into the input beside the query.
 */
export const takesBody = (method: string): boolean => method === 'POST' || method === 'PUT' || method === 'PATCH';

export interface RestRequestParts {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
}

/**
 * One REST operation: which procedure it calls and how the HTTP request and response map onto that
 * procedure's input and output. No business rule lives here.
 */
interface RouteFields {
  operationId: string;
  summary: string;
  method: HttpMethod;
  version: 'v1' | 'v2';
  /** Relative to `/api/external/<version>`, with `{param}` placeholders as in the spec. */
  path: string;
  status: 200 | 201 | 204;
  procedure: ProcedurePath;
  /** Query parameters are strings; they are parsed by this explicit schema before the call. */
  query?: z.ZodObject;
  /** The spec requires `Accept: application/json` (endpoints 16-18). */
  requireJsonAccept?: boolean;
  /** Default: the body's fields with the path parameters (and parsed query) beside them. */
  toInput?: (parts: RestRequestParts) => unknown;
  /** Default: the procedure's output as it is. Ignored for 204. */
  toBody?: (output: never) => unknown;
  /**
   * The request body as the OpenAPI document describes it. Default: the procedure's input without
   * the path and query parameters; give it when `toInput` reshapes the body, or when the procedure
   * takes more than the contract's body (a field only a signed-in browser sends).
   */
  body?: z.ZodType;
  /** The success body as the OpenAPI document describes it; required when `toBody` is given. */
  responseBody?: z.ZodType;
}

/** One of the spec's 18 operations, by its number in the spec's Endpoints table. */
export interface SpecRoute extends RouteFields {
  endpoint: number;
  /** The OpenAPI tag: the resource (`Clients`, `Projects`, ...). */
  tag: string;
  extension?: undefined;
}

/**
 * An operation the vendor publishes beyond the spec's 18 (its documentation shows it, integrators
 * call it). Served with the same auth, role rules and error envelope; documented under its own tag.
 */
export interface ExtensionRoute extends RouteFields {
  endpoint?: undefined;
  tag?: undefined;
  extension: true;
}

export type RestRoute = SpecRoute | ExtensionRoute;

export const defineRoutes = (routes: SpecRoute[]): SpecRoute[] => routes;
