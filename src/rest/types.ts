import type { z } from 'zod';
import type { ProcedurePath } from '../trpc/router.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RestRequestParts {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
}

/**
 * One REST operation of the spec: which procedure it calls and how the HTTP request and response
 * map onto that procedure's input and output. No business rule lives here.
 */
export interface RestRoute {
  /** The spec's endpoint number (1-18). */
  endpoint: number;
  operationId: string;
  summary: string;
  tag: string;
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
   * the path and query parameters; give it only when `toInput` reshapes the body.
   */
  body?: z.ZodType;
  /** The success body as the OpenAPI document describes it; required when `toBody` is given. */
  responseBody?: z.ZodType;
}

export const defineRoutes = (routes: RestRoute[]): RestRoute[] => routes;
