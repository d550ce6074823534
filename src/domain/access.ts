import { forbidden } from '../errors.ts';
import type { ActingUser } from './team-members/acting-user.ts';
import type { Scope } from './scope.ts';

/** Owner and Admin may do everything (docs/design.md §3). */
export const isAdmin = (actor: Pick<ActingUser, 'organizationRole'>) => actor.organizationRole === 'Owner' || actor.organizationRole === 'Admin';

/**
 * Whether the call may do what an Owner or Admin may: the acting person is one, or the call names no
 * person and carries the workspace's own API key (which speaks for the workspace).
 */
export const actsAsAdmin = (scope: Scope) => scope.actor === null || isAdmin(scope.actor);

/** 403 unless the call acts as an Owner or Admin; `what` completes "Only an Owner or Admin may …". */
export function requireAdmin(scope: Scope, what: string): void {
  if (!actsAsAdmin(scope)) throw forbidden(`Only an Owner or Admin may ${what}`);
}
