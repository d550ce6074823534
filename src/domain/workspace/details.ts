import * as z from 'zod';
import { workspace } from '../../db/schema/index.ts';
import { requireAdmin } from '../access.ts';
import { dateTimeOut, idOut } from '../fields.ts';
import type { Scope } from '../scope.ts';

export const detailsOutput = z.object({
  id: idOut,
  name: z.string(),
  subdomain: z.string(),
  time_zone: z.string(),
  /** Where the workspace's links (app, invoices) point. */
  public_url: z.string(),
  created_at: dateTimeOut,
});

/** `workspace.details`: the settings page's facts about the workspace. */
export function workspaceDetails(scope: Scope): z.output<typeof detailsOutput> {
  requireAdmin(scope, 'see the workspace settings');
  const row = scope.db.select({ createdAt: workspace.createdAt }).from(workspace).get();
  const { id, name, subdomain, timeZone } = scope.workspace;
  return { id, name, subdomain, time_zone: timeZone, public_url: scope.links.publicBase, created_at: row?.createdAt ?? '' };
}
