import { randomUUID } from 'node:crypto';
import { roles, workspace } from '../../db/schema/index.ts';
import { AppError, invalidField } from '../../errors.ts';
import { isValidSubdomain } from '../../workspaces/host.ts';
import { createApiKey } from '../../workspaces/keys.ts';
import type { WorkspaceRegistry } from '../../workspaces/registry.ts';
import { email, timeZone } from '../fields.ts';
import { describeWorkspace } from './describe.ts';
import { BUILT_IN_ROLES } from '../roles.ts';
import { insertTeamMember } from '../team-members/create.ts';
import type { TeamMemberRecord } from '../team-members/schemas.ts';

interface NewWorkspace {
  subdomain: string;
  name?: string;
  timeZone: string;
  owner: { email: string; firstName: string; lastName: string };
}

interface ProvisionedWorkspace {
  subdomain: string;
  apiKey: string;
  keyId: string;
  owner: TeamMemberRecord;
}

/**
 * Creates a workspace file with its row, the built-in roles, its Owner and a first API key. The
 * registry builds the file out of sight and puts it in place only once these rows are committed,
 * so a workspace either exists whole or not at all, even when the process is killed half-way.
 */
export function provisionWorkspace(registry: WorkspaceRegistry, input: NewWorkspace, now: Date): ProvisionedWorkspace {
  if (!isValidSubdomain(input.subdomain)) {
    throw new AppError(
      'unprocessable',
      'invalid_subdomain',
      `"${input.subdomain}" is not a valid subdomain: use 1-63 lower-case letters, digits and inner hyphens`,
    );
  }
  const ownerEmail = email.safeParse(input.owner.email);
  if (!ownerEmail.success) throw invalidField('owner.email', 'must be a valid e-mail address');
  const zone = timeZone.safeParse(input.timeZone);
  if (!zone.success) throw invalidField('time_zone', `"${input.timeZone}" is not an IANA time zone`);
  if (registry.exists(input.subdomain)) throw workspaceExists(registry, input.subdomain);
  return registry.create(input.subdomain, (handle) =>
    handle.db.transaction((tx) => {
      const at = now.toISOString();
      tx.insert(workspace)
        .values({ id: randomUUID(), subdomain: input.subdomain, name: input.name ?? input.subdomain, timeZone: zone.data, createdAt: at, updatedAt: at })
        .run();
      tx.insert(roles)
        .values(BUILT_IN_ROLES.map((name) => ({ name, createdAt: at })))
        .run();
      const owner = insertTeamMember(
        tx,
        { email: ownerEmail.data, first_name: input.owner.firstName, last_name: input.owner.lastName, organization_role: 'Owner', time_zone: zone.data },
        zone.data,
        now,
      );
      const key = createApiKey(tx, { label: 'owner', now });
      return { subdomain: input.subdomain, apiKey: key.apiKey, keyId: key.id, owner };
    }),
  );
}

/** The refusal for a taken name; it says so when what takes it is a file that is no whole workspace. */
function workspaceExists(registry: WorkspaceRegistry, subdomain: string): AppError {
  const found = describeWorkspace(registry.fileFor(subdomain), subdomain);
  const problem = 'problem' in found ? `, but its file ${registry.fileFor(subdomain)} ${found.problem}` : '';
  return new AppError('conflict', 'workspace_exists', `The workspace ${subdomain} already exists${problem}`);
}
