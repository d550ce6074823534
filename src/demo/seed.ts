import type { WorkspaceHandle } from '../workspaces/handle.ts';
import { seedTeamAndClients } from './team-and-clients.ts';
import { seedRecipients } from './recipients.ts';
import { seedProjects } from './projects.ts';
import { seedTimeEntries } from './time-entries.ts';
import { seedInvoices } from './invoices.ts';

/**
 * Sample data for the `demo` workspace, one seeder per resource. Each seeder adds its data only
 * when it is not there yet, so an older demo workspace gains what newer versions add.
 */
export function seedDemo(handle: WorkspaceHandle, now: Date): void {
  seedTeamAndClients(handle, now);
  seedRecipients(handle, now);
  seedProjects(handle, now);
  seedTimeEntries(handle, now);
  seedInvoices(handle, now);
}
