import type { RestRoute } from '../types.ts';
import { clientsRoutes } from './clients.ts';
import { invoicesRoutes } from './invoices.ts';
import { projectsRoutes } from './projects.ts';
import { recipientsRoutes } from './recipients.ts';
import { teamMemberRoutes } from './team-members.ts';
import { timeEntriesRoutes } from './time-entries.ts';

/** The whole REST contract: every v1 and v2 operation of the spec, in endpoint order. */
export const restRoutes: RestRoute[] = [
  ...invoicesRoutes,
  ...timeEntriesRoutes,
  ...projectsRoutes,
  ...recipientsRoutes,
  ...clientsRoutes,
  ...teamMemberRoutes,
].sort((a, b) => a.endpoint - b.endpoint);
