import { initTRPC, TRPCError } from '@trpc/server';
import { z } from 'zod';
import { email } from '../domain/fields.ts';
import type { ActorScope, OpenScope, Scope } from '../domain/scope.ts';
import { withActor } from '../domain/scope.ts';
import { findActingUser } from '../domain/team-members/acting-user.ts';
import { conflict, errorKinds, unauthorized, workspaceNotFound } from '../errors.ts';
import { openWorkspaceScope } from '../services.ts';
import { verifyApiKey } from '../workspaces/keys.ts';
import type { Authenticated, Context } from './context.ts';
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

/**
 * Resolves the workspace of the request and checks its key: 404 when the host names no workspace,
 * 401 for a missing, unknown, revoked or expired key, 429 over the key's rate. Used by every
 * workspace procedure and by the doors when they must know the caller before a procedure runs (the
 * Accept rule, idempotency keys); done once per request, so a request takes one rate-limit token.
 */
export function authenticate(ctx: Context): Authenticated {
  if (ctx.auth) return ctx.auth;
  const { registry, clock, rateLimiter } = ctx.services;
  const handle = ctx.subdomain ? registry.get(ctx.subdomain) : null;
  if (!handle) throw workspaceNotFound();
  const key = verifyApiKey(handle.db, (b) => handle.memo(b), ctx.apiKey, clock());
  if (!key) throw unauthorized();
  // Operational, not a business rule: measured on the monotonic clock, not the injectable one.
  rateLimiter.take(`${handle.subdomain}:${key.id}`, performance.now());
  ctx.auth = { handle, keyId: key.id };
  return ctx.auth;
}

/**
 * Every workspace procedure: the workspace and key are checked, a mutation passes the workspace's
 * pause gate, one scope is opened for the call, its writes share a commit with those of requests
 * arriving at the same moment, and once that commit is durable the work it asked for (waking the
 * outbox, webhooks) is started. A mutation whose door keeps an answer (idempotency keys) has it
 * written in the same transaction as the change.
 */
export const workspaceProcedure = publicProcedure.use(async ({ ctx, next, path, type }) => {
  const { handle } = authenticate(ctx);
  // While the workspace's file is being copied (a move to another node, a restore) writes are
  // refused with 503 and Retry-After before they begin, so none is lost; reads go on.
  const leave = type === 'mutation' ? ctx.services.registry.gate.enterWrite(handle.subdomain) : null;
  try {
    return await ctx.services.registry.using(handle, async () => {
      const open = openWorkspaceScope(ctx.services, handle, { shareCommit: true });
      const hooks = type === 'mutation' ? ctx.callHooks : undefined;
      if (!hooks) return await settled(open, await next({ ctx: { scope: open.scope as Scope } }));
      if (!hooks.begin()) throw conflict('request_abandoned', 'The client closed the connection before the operation began; nothing was done');
      open.beforeCommit((tx, output) => hooks.beforeCommit(tx, path, output));
      try {
        return await settled(open, await next({ ctx: { scope: open.scope as Scope } }));
      } finally {
        hooks.end();
      }
    });
  } finally {
    leave?.();
  }
});

/**
 * Once a call succeeded and its commit is durable, starts the work that commit asked for (waking
 * the outbox, webhooks). Never answers before the write is durable: a failed shared commit fails
 * the call (500).
 */
async function settled<R extends { ok: boolean }>(open: OpenScope, result: R): Promise<R> {
  if (!result.ok) return result;
  await open.durable();
  open.settle();
  return result;
}

/**
 * For procedures whose input names the acting person in `email`: an active team member (unknown →
 * 422 user_not_found, inactive → 403 user_inactive).
 */
export const actingUserProcedure = workspaceProcedure
  .input(z.object({ email }))
  .use(({ ctx, input, next }) => next({ ctx: { scope: withActor(ctx.scope, findActingUser(ctx.scope, input.email)) as ActorScope } }));
