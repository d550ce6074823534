import type * as z from 'zod';
import { actingUserProcedure, type ProcedureMeta } from './init.ts';
import { appRouter } from './router.ts';

export interface ProcedureSchemas {
  /** tRPC merges these into one input object, in this order. */
  inputs: z.ZodType[];
  output: z.ZodType | undefined;
  /** The input names an acting user (`email`), so 403 `user_inactive`/`forbidden` can answer. */
  actingUser: boolean;
}

interface ProcedureDef {
  type?: 'query' | 'mutation' | 'subscription';
  inputs?: unknown[];
  output?: unknown;
  meta?: ProcedureMeta;
}

const procedures = (appRouter._def as unknown as { procedures: Record<string, { _def: ProcedureDef } | undefined> }).procedures;
const actingUserInput = (actingUserProcedure as unknown as { _def: ProcedureDef })._def.inputs?.[0];

/** The zod schemas a procedure was declared with, read from tRPC's own definition. */
export function procedureSchemas(path: string): ProcedureSchemas {
  const def = procedures[path]?._def;
  if (!def) throw new Error(`The REST route table names an unknown procedure: ${path}`);
  const inputs = (def.inputs ?? []) as z.ZodType[];
  return {
    inputs,
    output: def.output as z.ZodType | undefined,
    actingUser: actingUserInput !== undefined && inputs.includes(actingUserInput as z.ZodType),
  };
}

/** Whether the procedure at `path` answers with a secret shown once (false for no such procedure). */
export const answersWithSecret = (path: string): boolean => procedures[path]?._def.meta?.secretAnswer === true;

/** Whether the procedure tRPC runs for this name is a mutation (false for a query, or no such procedure). */
export const isMutation = (path: string): boolean => procedures[path]?._def.type === 'mutation';
