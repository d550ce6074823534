import { isAdmin } from '../access.ts';
import type { ActorScope, Scope } from '../scope.ts';
import type { ActingUser } from '../team-members/acting-user.ts';
import { readIdentity } from '../workspace/identity.ts';
import { managesAnyProject } from './queries.ts';
import type { MeRecord } from './schemas.ts';

/** What the app needs to know about the signed-in member to show them their pages. */
export function meOf(scope: Pick<Scope, 'statements' | 'workspace'>, member: ActingUser, sessionExpiresAt: string | null): MeRecord {
  const { id, subdomain, name, timeZone } = scope.workspace;
  return {
    member: {
      id: member.id,
      email: member.email,
      first_name: member.firstName,
      last_name: member.lastName,
      time_zone: member.timeZone,
      organization_role: member.organizationRole,
    },
    workspace: { id, name, subdomain, time_zone: timeZone, locale: readIdentity(scope).locale },
    is_admin: isAdmin(member),
    manages_projects: managesAnyProject(scope, member.id),
    session_expires_at: sessionExpiresAt,
  };
}

/** tRPC `auth.me`; the door says when the caller's session ends. */
export const getMe = (scope: ActorScope, input: { session_expires_at: string | null }): MeRecord => meOf(scope, scope.actor, input.session_expires_at);
