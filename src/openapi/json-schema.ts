import * as z from 'zod';

/** A JSON Schema (2020-12, the dialect of OpenAPI 3.1) as plain data. */
export type JsonSchema = { [key: string]: unknown };

const COMPONENT_REF = '#/components/schemas/';

/**
 * Converts zod schemas to JSON Schema for one document. Schemas that zod hoists into `$defs`
 * (those with a `.meta({ id })`, and recursive ones) become shared `components.schemas`, so one
 * name means one shape across the whole document.
 */
export class SchemaConverter {
  readonly components: Record<string, JsonSchema> = {};

  /**
   * `io: 'input'` describes what a request may send (before transforms and defaults), `'output'`
   * what a response carries. Types JSON cannot express (dates, bigints, transforms on the output
   * side) become `{}` rather than failing: the document must always build.
   */
  convert(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const json = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as JsonSchema;
    delete json.$schema;
    const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
    delete json.$defs;
    // The same id may mean different shapes for input and output (defaults, transforms).
    const rename = new Map(Object.keys(defs).map((name) => [name, this.nameFor(name, io, defs[name] as JsonSchema)]));
    const rewrite = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(rewrite);
      if (typeof value !== 'object' || value === null) return value;
      const out: JsonSchema = {};
      for (const [key, inner] of Object.entries(value)) {
        // zod bounds every integer to the safe range; stated, it only makes examples read -9007199254740991.
        if ((key === 'minimum' && inner === Number.MIN_SAFE_INTEGER) || (key === 'maximum' && inner === Number.MAX_SAFE_INTEGER)) continue;
        if (key === '$ref' && typeof inner === 'string' && inner.startsWith('#/$defs/')) {
          const name = inner.slice('#/$defs/'.length);
          out.$ref = COMPONENT_REF + (rename.get(name) ?? name);
        } else {
          out[key] = rewrite(inner);
        }
      }
      return out;
    };
    for (const [name, def] of Object.entries(defs)) this.components[rename.get(name) as string] = rewrite(def) as JsonSchema;
    return rewrite(json) as JsonSchema;
  }

  private nameFor(name: string, io: 'input' | 'output', def: JsonSchema): string {
    const existing = this.components[name];
    if (existing === undefined || JSON.stringify(existing) === JSON.stringify(def)) return name;
    const suffixed = `${name}${io === 'input' ? 'Input' : 'Output'}`;
    const other = this.components[suffixed];
    if (other === undefined || JSON.stringify(other) === JSON.stringify(def)) return suffixed;
    let n = 2;
    while (this.components[`${suffixed}${n}`] !== undefined) n++;
    return `${suffixed}${n}`;
  }
}

const isPlainObjectSchema = (s: JsonSchema) =>
  s.type === 'object' && s.allOf === undefined && s.anyOf === undefined && s.oneOf === undefined && s.$ref === undefined;

/**
 * One schema that accepts what all of `schemas` accept together: tRPC merges a procedure's
 * stacked inputs (e.g. the acting user's `email` and the resource's fields) into one object.
 */
export function mergeObjectSchemas(schemas: JsonSchema[]): JsonSchema {
  if (schemas.length === 1) return schemas[0] as JsonSchema;
  if (schemas.every(isPlainObjectSchema)) {
    const properties: Record<string, unknown> = {};
    const required = new Set<string>();
    const merged: JsonSchema = { type: 'object' };
    for (const s of schemas) {
      Object.assign(properties, s.properties ?? {});
      for (const r of (s.required ?? []) as string[]) required.add(r);
      // Strict parts stay strict only if every part is; otherwise tRPC would accept the others' keys.
      if (s.additionalProperties === false && schemas.every((o) => o.additionalProperties === false)) merged.additionalProperties = false;
    }
    merged.properties = properties;
    if (required.size > 0) merged.required = [...required];
    return merged;
  }
  return { allOf: schemas };
}

/**
 * The schema without the named properties (path and query parameters travel outside the body).
 * Walks into `allOf`/`anyOf`/`oneOf`, where tRPC inputs with alternatives keep their fields.
 */
export function omitProperties(schema: JsonSchema, names: readonly string[]): JsonSchema {
  if (names.length === 0) return schema;
  const out: JsonSchema = { ...schema };
  if (out.properties && typeof out.properties === 'object') {
    out.properties = Object.fromEntries(Object.entries(out.properties).filter(([key]) => !names.includes(key)));
  }
  if (Array.isArray(out.required)) {
    const required = (out.required as string[]).filter((key) => !names.includes(key));
    if (required.length > 0) out.required = required;
    else delete out.required;
  }
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    if (Array.isArray(out[key])) out[key] = (out[key] as JsonSchema[]).map((s) => omitProperties(s, names));
  }
  return out;
}

/** The top-level property schemas of an object schema (also inside `allOf`), for parameter docs. */
export function propertiesOf(schema: JsonSchema): Record<string, JsonSchema> {
  const own = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const nested = Array.isArray(schema.allOf) ? (schema.allOf as JsonSchema[]).map(propertiesOf) : [];
  return Object.assign({}, ...nested, own) as Record<string, JsonSchema>;
}

/** An object schema with no properties accepts nothing worth a request body. */
export const isEmptyObjectSchema = (schema: JsonSchema) =>
  isPlainObjectSchema(schema) && Object.keys((schema.properties ?? {}) as object).length === 0 && schema.additionalProperties === undefined;
