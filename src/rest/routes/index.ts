import type { RestRoute, SpecRoute } from '../types.ts';
import { clientsRoutes } from './clients.ts';
import { extensionRoutes } from './extensions.ts';
import { invoicesRoutes } from './invoices.ts';
import { projectsRoutes } from './projects.ts';
import { recipientsRoutes } from './recipients.ts';
import { teamMemberRoutes } from './team-members.ts';
import { timeEntriesRoutes } from './time-entries.ts';

/** The spec's 18 operations in endpoint order, then the extensions the vendor publishes beyond them. */
export const specRoutes: SpecRoute[] = [
  ...invoicesRoutes,
  ...timeEntriesRoutes,
  ...projectsRoutes,
  ...recipientsRoutes,
  ...clientsRoutes,
  ...teamMemberRoutes,
].sort((a, b) => a.endpoint - b.endpoint);

/** The whole REST contract. */
export const restRoutes: RestRoute[] = [...specRoutes, ...extensionRoutes];
