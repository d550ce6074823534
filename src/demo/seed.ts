import type { Scope } from '../domain/scope.ts';
import { seedInvoices } from './invoices.ts';
import { asOwner } from './owner.ts';
import { seedProjects } from './projects.ts';
import { seedRecipients } from './recipients.ts';
import { seedTeamAndClients } from './team-and-clients.ts';
import { seedTimeEntries } from './time-entries.ts';

/**
 * Sample data for the `demo` workspace, one seeder per resource, each through the same domain
 * operations as the API (the Owner acting). Each seeder adds its data only when it is not there
 * yet, so an older demo workspace gains what newer versions add.
 */
export function seedDemo(scope: Scope): void {
  seedTeamAndClients(scope);
  const owner = asOwner(scope);
  if (!owner) return;
  seedRecipients(owner);
  seedProjects(owner);
  seedTimeEntries(scope);
  seedInvoices(owner);
}
