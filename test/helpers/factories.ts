import { randomUUID } from 'node:crypto';
import type { Database } from '../../src/db/index.ts';
import {
  checklistItems,
  clients,
  projects,
  projectUsers,
  recipients,
  tasks,
  teamMembers,
  timeEntries,
} from '../../src/db/schema/index.ts';

/**
 * Test data written straight into a workspace file, with defaults for everything, so a test of one
 * resource does not depend on the procedures of another. Each returns the inserted row.
 */

const at = (now?: string) => now ?? new Date().toISOString();
let seq = 0;
const next = () => ++seq;

export function makeMember(db: Database, over: Partial<typeof teamMembers.$inferInsert> = {}) {
  const n = next();
  const row = {
    id: randomUUID(),
    email: `member${n}@example.test`,
    firstName: `First${n}`,
    lastName: `Last${n}`,
    timeZone: 'UTC',
    profileImageUrl: '',
    active: true,
    organizationRole: 'Member',
    createdAt: at(over.createdAt),
    updatedAt: at(over.updatedAt ?? over.createdAt),
    ...over,
  } satisfies typeof teamMembers.$inferInsert;
  db.insert(teamMembers).values(row).run();
  return row;
}

export function makeClient(db: Database, over: Partial<typeof clients.$inferInsert> = {}) {
  const n = next();
  const row = {
    id: randomUUID(),
    name: `Client ${n}`,
    identifier: `CL${n}`,
    secondaryName: '',
    internalNotes: '',
    currency: 'USD',
    status: 'active' as const,
    logo: null,
    defaultInvoiceDueInDays: 30,
    includeHoursByPersonInInvoice: false,
    fullAddress: '',
    lastInvoiceInterval: null,
    createdAt: at(over.createdAt),
    updatedAt: at(over.updatedAt ?? over.createdAt),
    ...over,
  } satisfies typeof clients.$inferInsert;
  db.insert(clients).values(row).run();
  return row;
}

export function makeRecipient(db: Database, clientId: string, over: Partial<typeof recipients.$inferInsert> = {}) {
  const n = next();
  const row = {
    id: randomUUID(),
    clientId,
    creatorId: null,
    name: `Recipient ${n}`,
    email: `recipient${n}@client.test`,
    deleted: false,
    createdAt: at(over.createdAt),
    updatedAt: at(over.updatedAt ?? over.createdAt),
    ...over,
  } satisfies typeof recipients.$inferInsert;
  db.insert(recipients).values(row).run();
  return row;
}

export function makeProject(db: Database, clientId: string, over: Partial<typeof projects.$inferInsert> = {}) {
  const n = next();
  const row = {
    id: randomUUID(),
    clientId,
    name: `Project ${n}`,
    identifier: `PRJ-${String(n).padStart(4, '0')}`,
    billingMethod: 'hourly_project_rate' as const,
    hourlyRateMinor: 10000,
    flatAmountMinor: null,
    currency: 'USD',
    internalNotes: '',
    status: 'active' as const,
    timeRoundUpto: 0,
    autolockEnabled: false,
    lockEndOfDay: false,
    lockEndOfWeek: false,
    lockEndOfMonth: false,
    replyTo: null,
    enableApprovals: false,
    notifyInstantly: false,
    notifyWeekly: false,
    notificationDay: null,
    notificationTime: null,
    lastInvoiceId: null,
    createdAt: at(over.createdAt),
    updatedAt: at(over.updatedAt ?? over.createdAt),
    ...over,
  } satisfies typeof projects.$inferInsert;
  db.insert(projects).values(row).run();
  return row;
}

export function makeTask(db: Database, projectId: string, over: Partial<typeof tasks.$inferInsert> = {}) {
  const n = next();
  const row = {
    id: randomUUID(),
    projectId,
    name: `Task ${n}`,
    billable: true,
    hourlyRateMinor: 0,
    archived: false,
    position: n,
    createdAt: at(over.createdAt),
    updatedAt: at(over.updatedAt ?? over.createdAt),
    ...over,
  } satisfies typeof tasks.$inferInsert;
  db.insert(tasks).values(row).run();
  return row;
}

export function makeChecklistItem(db: Database, taskId: string, over: Partial<typeof checklistItems.$inferInsert> = {}) {
  const n = next();
  const row = {
    id: randomUUID(),
    taskId,
    description: `Item ${n}`,
    position: n,
    createdAt: at(over.createdAt),
    updatedAt: at(over.updatedAt ?? over.createdAt),
    ...over,
  } satisfies typeof checklistItems.$inferInsert;
  db.insert(checklistItems).values(row).run();
  return row;
}

export function makeProjectUser(db: Database, projectId: string, userId: string, over: Partial<typeof projectUsers.$inferInsert> = {}) {
  const row = {
    id: randomUUID(),
    projectId,
    userId,
    role: 'regular_user' as const,
    hourlyRateMinor: 0,
    approvalType: 'manual_approval' as const,
    createdAt: at(over.createdAt),
    updatedAt: at(over.updatedAt ?? over.createdAt),
    ...over,
  } satisfies typeof projectUsers.$inferInsert;
  db.insert(projectUsers).values(row).run();
  return row;
}

export function makeTimeEntry(
  db: Database,
  refs: { clientId: string; projectId: string; taskId: string; userId: string },
  over: Partial<typeof timeEntries.$inferInsert> = {},
) {
  const row = {
    id: randomUUID(),
    ...refs,
    recordedOn: '2026-11-16',
    enteredSeconds: 3600,
    seconds: 3600,
    notes: '',
    metadata: null,
    status: 'unbilled' as const,
    isOverride: false,
    invoiceId: null,
    createdAt: at(over.createdAt),
    updatedAt: at(over.updatedAt ?? over.createdAt),
    ...over,
  } satisfies typeof timeEntries.$inferInsert;
  db.insert(timeEntries).values(row).run();
  return row;
}

/**
 * A ready-to-bill setup: a client, an hourly project with one billable task and one checklist
 * item, and a team member who is a regular user of it.
 */
export function makeProjectSetup(db: Database, over: { member?: Partial<typeof teamMembers.$inferInsert>; project?: Partial<typeof projects.$inferInsert> } = {}) {
  const client = makeClient(db);
  const project = makeProject(db, client.id, over.project);
  const task = makeTask(db, project.id);
  const item = makeChecklistItem(db, task.id);
  const member = makeMember(db, over.member);
  const projectUser = makeProjectUser(db, project.id, member.id);
  return { client, project, task, item, member, projectUser };
}
