import { initTRPC, TRPCError } from '@trpc/server';
import * as z from 'zod';
import { accountById } from '../domain/accounts/queries.ts';
import { findSession } from '../domain/accounts/sessions.ts';
import { addressBucket } from '../domain/accounts/throttle.ts';
import { email } from '../domain/fields.ts';
import type { ActorScope, OpenScope, Scope } from '../domain/scope.ts';
import { withActor } from '../domain/scope.ts';
import { findActingUser, type ActingUser } from '../domain/team-members/acting-user.ts';
import { AppError, conflict, errorKinds, forbidden, unauthorized, workspaceNotFound } from '../errors.ts';
import { openWorkspaceScope } from '../services.ts';
import type { WorkspaceHandle } from '../workspaces/handle.ts';
import { verifyApiKey } from '../workspaces/keys.ts';
import type { Authenticated, Context } from './context.ts';
import { toAppError } from './errors.ts';

/** What a procedure declares about itself beyond its schemas. */
export interface ProcedureMeta {
  /**
   * Its answer shows a secret once (an API key, a webhook signing secret), which is never stored:
   * an `Idempotency-Key` cannot keep that answer for a retry, so it is refused (docs/idempotency.md).
   */
  secretAnswer?: boolean;
}

const t = initTRPC.context<Context>().meta<ProcedureMeta>().create({
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

/**
 * A failure in the product's terms: a TRPCError whose code matches the product's status for it.
 * Internal errors stay as they are, for tRPC to hide.
 */
function productError(err: unknown): unknown {
  const { error: app, internal } = toAppError(err);
  return internal ? err : new TRPCError({ code: errorKinds[app.kind].trpc, message: app.message, cause: app });
}

/**
 * Runs the rest of a call (the middlewares after this point and the procedure) with every failure,
 * thrown or returned, turned into the product's error. Shared by the middlewares that open a call,
 * so each does its own work and the mapping in one layer of the chain: every layer costs each
 * request a copy of the call's options and context.
 */
async function mappingErrors<R extends { ok: true } | { ok: false; error: unknown }>(call: () => Promise<R>): Promise<R> {
  try {
    const result = await call();
    return result.ok ? result : { ...result, error: productError(result.error) };
  } catch (err) {
    throw productError(err);
  }
}

const mapErrors = t.middleware(({ next }) => mappingErrors(() => next()));

export const publicProcedure = t.procedure.use(mapErrors);

function workspaceOf(ctx: Context): WorkspaceHandle {
  const handle = ctx.subdomain ? ctx.services.registry.get(ctx.subdomain) : null;
  if (!handle) throw workspaceNotFound();
  return handle;
}

/** Operational, not a business rule: measured on the monotonic clock, not the injectable one. */
const throttle = (ctx: Context, bucket: string) => ctx.services.rateLimiter.take(bucket, performance.now());

/**
 * Resolves the workspace of the request and checks its API key: 404 when the host names no
 * workspace, 401 for a missing, unknown, revoked or expired key, 429 over the key's rate. Used for
 * every call that presents a key, and by the doors when they must know the caller before a
 * procedure runs (the Accept rule, idempotency keys); done once per request, so a request takes
 * one rate-limit token.
 */
export function authenticate(ctx: Context): Authenticated {
  if (ctx.auth) return ctx.auth;
  const handle = workspaceOf(ctx);
  const key = verifyApiKey(handle.db, (b) => handle.memo(b), ctx.apiKey, ctx.services.clock());
  if (!key) throw unauthorized();
  throttle(ctx, `${handle.subdomain}:${key.id}`);
  ctx.auth = { handle, keyId: key.id, memberId: key.memberId };
  return ctx.auth;
}

/**
 * Who a call acts as (docs/auth.md). The workspace's API key speaks for the workspace and names
 * the acting person in `email` where a procedure needs one (the REST contract). A personal key and
 * a session ARE a member: that member acts, whatever the input says.
 */
export type Credential =
  | { kind: 'workspace_key' }
  | { kind: 'personal_key'; member: ActingUser }
  | { kind: 'session'; member: ActingUser; sessionId: string; expiresAt: string };

const sessionEnded = () => new AppError('unauthorized', 'session_expired', 'Your session has ended; sign in again');

function activeMember(scope: Scope, memberId: string): ActingUser {
  const account = accountById(scope, memberId);
  if (!account) throw unauthorized();
  if (!account.active) throw new AppError('forbidden', 'user_inactive', `The team member ${account.email} is inactive`);
  const { active: _active, passwordHash: _hash, ...member } = account;
  return member;
}

/**
 * An `X-Api-Key` header wins (it is what integrations send; the cookie is ignored then). Without
 * one, the /trpc door's session cookie is looked up in this workspace's own file, so a cookie of
 * another workspace finds nothing here.
 */
function credentialOf(ctx: Context, handle: WorkspaceHandle, scope: Scope): Credential {
  const browser = ctx.browser;
  if (ctx.apiKey === undefined && browser?.sessionToken) {
    const session = findSession(scope, browser.sessionToken);
    if (!session) {
      browser.setSession(null);
      throw sessionEnded();
    }
    throttle(ctx, `${handle.subdomain}:member:${session.member.id}`);
    return { kind: 'session', member: session.member, sessionId: session.id, expiresAt: session.expiresAt };
  }
  const { memberId } = authenticate(ctx);
  return memberId ? { kind: 'personal_key', member: activeMember(scope, memberId) } : { kind: 'workspace_key' };
}

/**
 * Opens one scope for the call. A mutation first passes the workspace's pause gate: while its
 * file is copied (a move to another node, a restore) writes are refused with 503 and Retry-After
 * before they begin, so none is lost; reads go on. The call's writes share a commit with those of
 * requests arriving at the same moment; once that commit is durable the work it asked for (waking
 * the outbox, webhooks) is started. A mutation whose door keeps an answer (idempotency keys) has
 * it written in the same transaction as the change.
 */
async function inWorkspace<R extends { ok: boolean }>(
  ctx: Context,
  call: { path: string; type: string },
  proceed: (handle: WorkspaceHandle, scope: Scope) => Promise<R>,
): Promise<R> {
  const handle = workspaceOf(ctx);
  const leave = call.type === 'mutation' ? ctx.services.registry.gate.enterWrite(handle.subdomain) : null;
  try {
    return await ctx.services.registry.using(handle, async () => {
      const open = openWorkspaceScope(ctx.services, handle, { shareCommit: true });
      const hooks = call.type === 'mutation' ? ctx.callHooks : undefined;
      if (!hooks) return await settled(open, await proceed(handle, open.scope));
      if (!hooks.begin()) throw conflict('request_abandoned', 'The client closed the connection before the operation began; nothing was done');
      open.beforeCommit((tx, output) => hooks.beforeCommit(tx, call.path, output));
      try {
        return await settled(open, await proceed(handle, open.scope));
      } finally {
        hooks.end();
      }
    });
  } finally {
    leave?.();
  }
}

/**
 * Once a call succeeded and its commit is durable, starts the work that commit asked for. Never
 * answers before the write is durable: a failed shared commit fails the call (500).
 */
async function settled<R extends { ok: boolean }>(open: OpenScope, result: R): Promise<R> {
  if (!result.ok) return result;
  await open.durable();
  open.settle();
  return result;
}

/**
 * Every workspace procedure: the workspace and the credential are checked, and a member's
 * credential (session, personal key) makes the member the scope's actor, so the domain's role
 * rules judge them and never the workspace key's powers.
 */
export const workspaceProcedure = t.procedure.use(({ ctx, next, path, type }) =>
  mappingErrors(() =>
    inWorkspace(ctx, { path, type }, (handle, opened) => {
      const credential = credentialOf(ctx, handle, opened);
      const scope: Scope = credential.kind === 'workspace_key' ? opened : withActor(opened, credential.member);
      return next({ ctx: { handle, scope, credential } });
    }),
  ),
);

/**
 * For calls that come before any credential (sign in, use a one-time link, ask for a reset): the
 * workspace only, from a browser. Each is throttled per client address (an IPv6 one as its /64,
 * as the sign-in limit counts it).
 */
export const guestProcedure = t.procedure.use(({ ctx, next, path, type }) =>
  mappingErrors(() =>
    inWorkspace(ctx, { path, type }, (handle, scope) => {
      const browser = ctx.browser;
      if (!browser) throw new AppError('unprocessable', 'browser_only', 'Signing in is for browsers on /trpc; integrations use an API key');
      throttle(ctx, `${handle.subdomain}:address:${addressBucket(browser.client.address)}`);
      return next({ ctx: { handle, scope, browser } });
    }),
  ),
);

/** For the signed-in member's own matters (who am I, sign out, change password). */
export const sessionProcedure = workspaceProcedure.use(({ ctx, next }) => {
  if (ctx.credential.kind !== 'session' || !ctx.browser) throw new AppError('unauthorized', 'session_required', 'Sign in to continue');
  return next({ ctx: { scope: ctx.scope as ActorScope, session: ctx.credential, browser: ctx.browser } });
});

/** The acting person's `email`, as the REST contract names it; one schema object, so OpenAPI can tell. */
export const actingUserInput = z.object({ email });

/**
 * With a member's credential `email` may be left out: it is the member's. (tRPC hands each input
 * parser the raw input, so it is filled in before the schema above reads it.)
 */
const emailDefaultsToMember = t.middleware(async ({ ctx, getRawInput, next }) => {
  const { credential } = ctx as unknown as { credential?: Credential };
  if (!credential || credential.kind === 'workspace_key') return next();
  const raw = await getRawInput();
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || (raw as { email?: unknown }).email !== undefined) return next();
  return next({ getRawInput: async () => ({ ...raw, email: credential.member.email }) });
});

const sameEmail = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * The scope of a call whose input names the acting person in `email`. With the workspace key: an
 * active team member (unknown → 422 user_not_found, inactive → 403 user_inactive). With a session
 * or a personal key the member acts, and naming anyone else is refused (403 acting_user_mismatch).
 */
export function actingAs(scope: Scope, email: string): ActorScope {
  const { actor } = scope;
  if (actor && !sameEmail(actor.email, email)) {
    throw forbidden(`You are signed in as ${actor.email} and cannot act as ${email}`, 'acting_user_mismatch');
  }
  return (actor ? scope : withActor(scope, findActingUser(scope, email))) as ActorScope;
}

/** For procedures whose input names the acting person in `email` (see `actingAs`). */
export const actingUserProcedure = workspaceProcedure
  .use(emailDefaultsToMember)
  .input(actingUserInput)
  .use(({ ctx, input, next }) => next({ ctx: { scope: actingAs(ctx.scope, input.email) } }));

/**
 * For procedures whose `email` names whom the call is for (a time entry's user). With the workspace
 * key that person also acts (the REST contract); with a member's credential the member acts, and
 * the operation decides whether they may act for the person named.
 */
export const subjectUserProcedure = workspaceProcedure
  .use(emailDefaultsToMember)
  .input(actingUserInput)
  .use(({ ctx, input, next }) => {
    const scope = ctx.scope.actor ? ctx.scope : withActor(ctx.scope, findActingUser(ctx.scope, input.email));
    return next({ ctx: { scope: scope as ActorScope } });
  });
