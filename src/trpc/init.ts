import { initTRPC, TRPCError } from '@trpc/server';
import { z } from 'zod';
import { errorKinds, unauthorized, workspaceNotFound, type AppError } from '../errors.ts';
import { findActingUser, isAdmin, requireAdmin, type ActingUser } from '../domain/team-members/acting-user.ts';
import { email } from '../domain/fields.ts';
import { workspaceInfo, type WorkspaceInfo } from '../workspaces/info.ts';
import { verifyApiKey } from '../workspaces/keys.ts';
import type { WorkspaceHandle } from '../workspaces/handle.ts';
import type { Database } from '../db/index.ts';
import type { Context } from './context.ts';
import { toAppError } from './errors.ts';

const t = initTRPC.context<Context>().create({
  errorFormatter({ shape, error }) {
    const { error: app } = toAppError(error);
    return {
      message: app.message,
      code: shape.code,
      data: {
        code: app.code,
        httpStatus: app.status,
        path: shape.data.path,
        ...(app.details ? { details: app.details } : {}),
        ...(app.extra ? { extra: app.extra } : {}),
      },
    };
  },
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Turns every failure into a TRPCError whose code matches the product's status for it. */
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (result.ok) return result;
  const { error: app, internal } = toAppError(result.error);
  if (internal) return result;
  const mapped = new TRPCError({ code: errorKinds[app.kind].trpc, message: app.message, cause: app });
  return { ...result, error: mapped };
});

export const publicProcedure = t.procedure.use(mapErrors);

export interface Authenticated {
  handle: WorkspaceHandle;
  db: Database;
  workspace: WorkspaceInfo;
}

/**
 * Resolves the workspace of the request and checks its key: 404 when the host names no workspace,
 * 401 for a missing, unknown, revoked or expired key. Used by every workspace procedure and by the
 * REST adapter when it must answer before a procedure runs (the Accept rule).
 */
export function authenticate(ctx: Context): Authenticated {
  const handle = ctx.subdomain ? ctx.registry.get(ctx.subdomain) : null;
  if (!handle) throw workspaceNotFound();
  const now = ctx.clock();
  const key = verifyApiKey(handle.db, (b) => handle.memo(b), ctx.apiKey, now);
  if (!key) throw unauthorized();
  // Operational, not a business rule: measured on the monotonic clock, not the injectable one.
  ctx.rateLimiter.take(`${handle.subdomain}:${key.id}`, performance.now());
  return { handle, db: handle.db, workspace: workspaceInfo(handle) };
}

export const workspaceProcedure = publicProcedure.use(async ({ ctx, next }) => {
  const auth = authenticate(ctx);
  return ctx.registry.using(auth.handle, () => next({ ctx: { ...ctx, ...auth } }));
});

/**
 * For procedures whose input names an acting user in `email`: the user must be an active team
 * member (unknown → 422 user_not_found, inactive → 403 user_inactive).
 */
export const actingUserProcedure = workspaceProcedure
  .input(z.object({ email }))
  .use(({ ctx, input, next }) => next({ ctx: { actor: findActingUser(ctx.handle, input.email) } }));

export type { ActingUser };
export { isAdmin, requireAdmin };

export type { AppError };
