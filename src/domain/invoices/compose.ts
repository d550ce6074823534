import { and, asc, eq } from 'drizzle-orm';
import * as z from 'zod';
import type { Db } from '../../db/index.ts';
import { projects, recipients, tasks, teamMembers, timeEntries } from '../../db/schema/index.ts';
import { requireAdmin } from '../access.ts';
import { dateOut, emailOut, idIn, idOut } from '../fields.ts';
import { fromMinor } from '../money.ts';
import type { Scope } from '../scope.ts';
import { invalidField } from '../../errors.ts';
import { hoursOf } from '../time/hours.ts';
import { activeClient, projectsOf } from './store.ts';
import { nextInvoiceNumber } from './next-number.ts';
import { priceInvoice } from './price.ts';
import { billableEntries, findInvoice } from './queries.ts';
import { assertEditableDraft } from './update.ts';
import { toLineRecord, toTaxRecord } from './records.ts';
import { serviceLineInput, taxInput, timeEntryLineInput } from './schemas.ts';

/**
 * What the app's "new invoice" page needs, and the preview of what an invoice would be. The
 * preview prices through `priceInvoice`, the one pricing pass invoice creation uses, so what the
 * page shows is what creating the invoice will charge.
 */

export const composeInput = z.object({ client_id: idIn() });
export const composeOutput = z.object({
  client: z.object({ id: idOut, name: z.string(), currency: z.string(), default_invoice_due_in_days: z.number().int() }),
  projects: z.array(z.object({ id: idOut, name: z.string(), billing_method: z.string() })),
  recipients: z.array(z.object({ id: idOut, name: z.string(), email: emailOut })),
  unbilled: z.array(
    z.object({
      id: idOut,
      project_id: idOut,
      project_name: z.string(),
      task_id: idOut,
      task_name: z.string(),
      user_id: idOut,
      user_name: z.string(),
      recorded_on: dateOut,
      hours: z.number(),
      notes: z.string(),
    }),
  ),
  next_number: z.string(),
});

/** A client's live recipients by name: whom the app offers to send an invoice to. */
export const liveRecipientsOf = (db: Db, clientId: string) =>
  db
    .select({ id: recipients.id, name: recipients.name, email: recipients.email })
    .from(recipients)
    .where(and(eq(recipients.clientId, clientId), eq(recipients.deleted, false)))
    .orderBy(asc(recipients.name))
    .all();

/** An invoice bills at most this many entries per page load; more are billed in a second invoice. */
const MAX_UNBILLED = 5000;

/** tRPC `invoices.compose`: the client, its projects, live recipients and unbilled billable time, and a proposed number. */
export function composeInvoice(scope: Scope, input: z.output<typeof composeInput>): z.output<typeof composeOutput> {
  requireAdmin(scope, 'create invoices');
  const { db } = scope;
  const client = activeClient(db, input.client_id);
  const unbilled = db
    .select({
      id: timeEntries.id,
      project_id: timeEntries.projectId,
      project_name: projects.name,
      task_id: timeEntries.taskId,
      task_name: tasks.name,
      user_id: timeEntries.userId,
      first: teamMembers.firstName,
      last: teamMembers.lastName,
      recorded_on: timeEntries.recordedOn,
      seconds: timeEntries.seconds,
      notes: timeEntries.notes,
    })
    .from(timeEntries)
    .innerJoin(projects, eq(projects.id, timeEntries.projectId))
    .innerJoin(tasks, eq(tasks.id, timeEntries.taskId))
    .innerJoin(teamMembers, eq(teamMembers.id, timeEntries.userId))
    .where(and(eq(timeEntries.clientId, client.id), eq(timeEntries.status, 'unbilled'), eq(tasks.billable, true)))
    .orderBy(asc(projects.name), asc(timeEntries.recordedOn), asc(timeEntries.createdAt))
    .limit(MAX_UNBILLED)
    .all();
  return {
    client: { id: client.id, name: client.name, currency: client.currency, default_invoice_due_in_days: client.defaultInvoiceDueInDays },
    projects: db
      .select({ id: projects.id, name: projects.name, billing_method: projects.billingMethod })
      .from(projects)
      .where(eq(projects.clientId, client.id))
      .orderBy(asc(projects.name))
      .all(),
    recipients: liveRecipientsOf(db, client.id),
    unbilled: unbilled.map(({ first, last, seconds, ...e }) => ({ ...e, user_name: `${first} ${last}`.trim(), hours: hoursOf(seconds) })),
    next_number: nextInvoiceNumber(scope).number,
  };
}

export const previewInput = z
  .object({
    client_id: idIn(),
    invoice_id: idIn().describe("A draft of this client being edited: its own time entries count as unbilled, its currency is used").optional(),
    project_id: z.array(idIn()).max(500).optional(),
    invoice_time_entries: z.array(timeEntryLineInput).max(20000).optional(),
    invoice_services: z.array(serviceLineInput).max(5000).optional(),
    tax_details: z.array(taxInput).max(20).optional(),
  })
  .refine((v) => (v.invoice_time_entries === undefined) !== (v.invoice_services === undefined), {
    message: 'give exactly one of invoice_time_entries or invoice_services',
    path: ['invoice_time_entries'],
  });

export const previewOutput = z.object({
  currency: z.string(),
  lines: z.array(
    z.object({
      kind: z.enum(['time_entry', 'service']),
      time_entry_id: idOut.nullable(),
      project_id: idOut.nullable(),
      notes: z.string(),
      hours: z.number().nullable(),
      hourly_rate: z.number().nullable(),
      quantity: z.number().nullable(),
      unit_amount: z.number().nullable(),
      amount: z.number(),
    }),
  ),
  taxes: z.array(z.object({ name: z.string(), percentage: z.number(), selected: z.boolean(), amount: z.number() })),
  subtotal: z.number(),
  tax_total: z.number(),
  total: z.number(),
});

/**
 * tRPC `invoices.preview`: the lines, taxes and total an invoice with these lines would have, every
 * line checked as on creation (an entry already billed, a write-up, a foreign project: the same 422
 * naming the line). Nothing is written.
 */
export function previewInvoice(scope: Scope, input: z.output<typeof previewInput>): z.output<typeof previewOutput> {
  requireAdmin(scope, 'create invoices');
  const client = activeClient(scope.db, input.client_id);
  const draft = input.invoice_id === undefined ? null : findInvoice(scope.db, input.invoice_id);
  if (draft) {
    assertEditableDraft(draft, 'edited');
    if (draft.clientId !== client.id) throw invalidField('invoice_id', `is an invoice of another client than ${client.name}`);
  }
  const { clientProjects, requested } = projectsOf(scope.db, client.id, input.project_id);
  const entries = billableEntries(scope, input.invoice_time_entries?.map((l) => l.time_entry_id) ?? [], draft?.id);
  const currency = draft?.currency ?? client.currency;
  const priced = priceInvoice(input, { clientId: client.id, currency, clientProjects, allowedProjects: requested && new Set(requested), entries });
  return {
    currency,
    lines: priced.lines.map((line) => {
      const record = toLineRecord({ ...line, id: 0 }, currency);
      return {
        kind: record.kind,
        time_entry_id: record.time_entry_id,
        project_id: record.project_id,
        notes: record.notes,
        hours: record.hours,
        hourly_rate: record.hourly_rate,
        quantity: record.quantity,
        unit_amount: record.unit_amount,
        amount: record.amount,
      };
    }),
    taxes: priced.taxes.map((tax) => {
      const { name, percentage, selected, amount } = toTaxRecord({ ...tax, id: '', invoiceId: '' }, currency);
      return { name, percentage, selected, amount };
    }),
    subtotal: fromMinor(priced.subtotalMinor, currency),
    tax_total: fromMinor(priced.taxMinor, currency),
    total: fromMinor(priced.totalMinor, currency),
  };
}
