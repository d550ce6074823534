import { parseArgs, type ParseArgsConfig } from 'node:util';
import type * as z from 'zod';
import { lowerCaseUuid } from '../domain/uuid.ts';

/** A bad argument: printed on stderr, exit status 1. */
export class UsageError extends Error {}

export function parse<O extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options: { ...options, json: { type: 'boolean' } }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** Checks one argument with the same schema the API uses, so both accept exactly the same values. */
export function check<S extends z.ZodType>(flag: string, schema: S, value: unknown, flags: Record<string, string> = {}): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issue?.path[0];
    const name = typeof field === 'string' ? (flags[field] ?? `--${field.replaceAll('_', '-')}`) : flag;
    throw new UsageError(`${name}: ${issue?.message ?? 'invalid value'}`);
  }
  return result.data;
}

export function required(flag: string, value: string | undefined): string {
  if (value === undefined || value === '') throw new UsageError(`${flag} is required`);
  return value;
}

/** A required id argument; a UUID in upper case is read as the same id, as the API reads it. */
export const requiredId = (flag: string, value: string | undefined): string => lowerCaseUuid(required(flag, value));
