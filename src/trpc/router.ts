import type { AnyProcedure } from '@trpc/server';
import { accountsRouter, apiKeysRouter } from './routers/accounts.ts';
import { authRouter } from './routers/auth.ts';
import { clientsRouter } from './routers/clients.ts';
import { invoicesRouter } from './routers/invoices.ts';
import { projectsRouter } from './routers/projects.ts';
import { recipientsRouter } from './routers/recipients.ts';
import { reportsRouter } from './routers/reports.ts';
import { tasksRouter } from './routers/tasks.ts';
import { teamMembersRouter } from './routers/team-members.ts';
import { timeEntriesRouter } from './routers/time-entries.ts';
import { approvalsRouter, timesheetRouter } from './routers/timesheet.ts';
import { webhooksRouter } from './routers/webhooks.ts';
import { workspaceRouter } from './routers/workspace.ts';
import { createCallerFactory, router } from './init.ts';

export const appRouter = router({
  teamMembers: teamMembersRouter,
  clients: clientsRouter,
  recipients: recipientsRouter,
  projects: projectsRouter,
  tasks: tasksRouter,
  timeEntries: timeEntriesRouter,
  invoices: invoicesRouter,
  workspace: workspaceRouter,
  webhooks: webhooksRouter,
  reports: reportsRouter,
  auth: authRouter,
  accounts: accountsRouter,
  apiKeys: apiKeysRouter,
  timesheet: timesheetRouter,
  approvals: approvalsRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);

/** Every procedure's dotted path, e.g. `timeEntries.create`; REST rows name procedures by it. */
type PathsOf<R, Prefix extends string = ''> = {
  [K in keyof R & string]: R[K] extends AnyProcedure ? `${Prefix}${K}` : PathsOf<R[K], `${Prefix}${K}.`>;
}[keyof R & string];

export type ProcedurePath = PathsOf<AppRouter['_def']['record']>;
