import { and, eq, ne, sql } from 'drizzle-orm';
import type { Database, Db } from '../../db/index.ts';
import { sessions, teamMembers } from '../../db/schema/index.ts';
import type { Scope } from '../scope.ts';
import { actingUserColumns, type ActingUser } from '../team-members/acting-user.ts';
import { newSecret, plausibleSecret, secretHash } from './secrets.ts';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
/** A session unused this long ends (a laptop left signed in over a holiday). */
export const SESSION_IDLE_MS = 7 * DAY_MS;
/** And every session ends this long after sign-in, however active. */
export const SESSION_ABSOLUTE_MS = 30 * DAY_MS;
/** `last_seen_at` is written at most this often, so reads stay reads. */
const TOUCH_RESOLUTION_MS = MINUTE_MS;

/** Who is signing in from where, kept on the session so a person can recognise their sessions. */
export interface ClientInfo {
  address: string;
  userAgent: string;
}

export interface SessionGrant {
  /** The cookie's value; only its hash is stored. */
  token: string;
  expiresAt: string;
}

/** Starts a session for a member inside the caller's transaction. */
export function startSession(scope: Pick<Scope, 'now'>, tx: Db, memberId: string, client: ClientInfo): SessionGrant {
  const token = newSecret();
  const at = scope.now.toISOString();
  const expiresAt = new Date(scope.now.getTime() + SESSION_ABSOLUTE_MS).toISOString();
  tx.insert(sessions)
    .values({ id: secretHash(token), memberId, createdAt: at, lastSeenAt: at, expiresAt, userAgent: client.userAgent.slice(0, 300), address: client.address.slice(0, 100) })
    .run();
  return { token, expiresAt };
}

const statements = (db: Database) => ({
  byId: db
    .select({ ...actingUserColumns, active: teamMembers.active, sessionId: sessions.id, lastSeenAt: sessions.lastSeenAt, expiresAt: sessions.expiresAt })
    .from(sessions)
    .innerJoin(teamMembers, eq(teamMembers.id, sessions.memberId))
    .where(eq(sessions.id, sql.placeholder('id')))
    .prepare(),
  touch: db
    .update(sessions)
    .set({ lastSeenAt: sql`${sql.placeholder('at')}` })
    .where(eq(sessions.id, sql.placeholder('id')))
    .prepare(),
  remove: db
    .delete(sessions)
    .where(eq(sessions.id, sql.placeholder('id')))
    .prepare(),
});

export interface LiveSession {
  /** The stored id (the hash), to end this session. */
  id: string;
  member: ActingUser;
  expiresAt: string;
}

/**
 * The session a cookie names in this workspace's file, or null: unknown (another workspace's cookie
 * finds nothing here), idle too long, past its absolute end, or of a member who is no longer
 * active. An ended session's row is removed as it is found.
 */
export function findSession(scope: Pick<Scope, 'statements' | 'now'>, token: string | undefined): LiveSession | null {
  if (!plausibleSecret(token)) return null;
  const st = scope.statements(statements);
  const id = secretHash(token);
  const row = st.byId.get({ id });
  if (!row) return null;
  const now = scope.now.getTime();
  if (!row.active || Date.parse(row.expiresAt) <= now || Date.parse(row.lastSeenAt) + SESSION_IDLE_MS <= now) {
    st.remove.run({ id });
    return null;
  }
  if (now - Date.parse(row.lastSeenAt) >= TOUCH_RESOLUTION_MS) st.touch.run({ id, at: scope.now.toISOString() });
  const { active: _active, sessionId: _sessionId, lastSeenAt: _lastSeenAt, expiresAt, ...member } = row;
  return { id, member, expiresAt };
}

/** Ends one session (sign-out). */
export function endSession(scope: Pick<Scope, 'statements'>, id: string): void {
  scope.statements(statements).remove.run({ id });
}

/** Ends every session of a member, except `keepId` when given (the one that asked). */
export function endMemberSessions(tx: Db, memberId: string, keepId?: string): number {
  return tx
    .delete(sessions)
    .where(and(eq(sessions.memberId, memberId), keepId ? ne(sessions.id, keepId) : undefined))
    .run().changes;
}
