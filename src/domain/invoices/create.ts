import { randomBytes, randomUUID } from 'node:crypto';
import type BetterSqlite3 from 'better-sqlite3';
import { eq, inArray } from 'drizzle-orm';
import type { Database } from '../../db/index.ts';
import { clients, invoiceProjects, invoiceRecipients, invoices, invoiceTaxes, projects } from '../../db/schema/index.ts';
import { AppError, conflict, invalidField, notFound, unprocessable } from '../../errors.ts';
import type { WorkspaceHandle } from '../../workspaces/handle.ts';
import { findLiveRecipients } from '../recipients/recipients.ts';
import type { ActingUser } from '../team-members/acting-user.ts';
import { withinTolerance } from '../money.ts';
import { addDays, localDate } from '../time/calendar.ts';
import {
  computeServiceLines,
  computeTaxes,
  computeTimeLines,
  computedTotalExtra,
  sumMinor,
  type BillableEntry,
  type ComputedLine,
} from './lines.ts';
import { queueInvoiceMail, replyToFor, type MailContext } from './mail.ts';
import { toInvoiceRecord, type InvoiceRow } from './records.ts';
import type { CreateInput, InvoiceRecord } from './schemas.ts';

/**
 * Hot-path statements, prepared once per open workspace file (`handle.memo`) and reused by every
 * invoice. Raw SQL, because the entry ids travel as one JSON array parameter.
 */
const statements = (db: Database) => {
  // drizzle() keeps its connection as `$client`; its exported Database type just does not say so.
  const raw = (db as Database & { $client: BetterSqlite3.Database }).$client;
  return {
    /**
     * Every entry named by a request in one query, with whether its task is billable now: a task
     * made non-billable after the entry was recorded must not be invoiced either.
     */
    entries: raw.prepare<[string], BillableEntry>(
      `SELECT te.id, te.client_id AS clientId, te.project_id AS projectId, te.task_id AS taskId, te.user_id AS userId,
              te.seconds, te.status, p.billing_method AS billingMethod, p.hourly_rate_minor AS projectRateMinor,
              p.currency AS projectCurrency, t.hourly_rate_minor AS taskRateMinor, pu.hourly_rate_minor AS personRateMinor,
              t.billable AS taskBillable
         FROM time_entries te
         JOIN projects p ON p.id = te.project_id
         JOIN tasks t ON t.id = te.task_id
         LEFT JOIN project_users pu ON pu.project_id = te.project_id AND pu.user_id = te.user_id
        WHERE te.id IN (SELECT value FROM json_each(?))`,
    ),
    insertLine: raw.prepare(
      `INSERT INTO invoice_lines (id, invoice_id, kind, position, time_entry_id, project_id, task_id, user_id, notes,
                                  seconds, hours, hourly_rate_minor, quantity_milli, unit_amount_minor, file, amount_minor)
       VALUES (@id, @invoiceId, @kind, @position, @timeEntryId, @projectId, @taskId, @userId, @notes,
               @seconds, @hours, @hourlyRateMinor, @quantityMilli, @unitAmountMinor, @file, @amountMinor)`,
    ),
    /**
     * Only entries still `unbilled` move: if another invoice billed one in between, fewer rows
     * change and the caller rolls back, so an entry can never be billed twice.
     */
    markBilled: raw.prepare<[string, string, string]>(
      `UPDATE time_entries SET status = 'billed', invoice_id = ?, updated_at = ?
        WHERE id IN (SELECT value FROM json_each(?)) AND +status = 'unbilled'`,
    ),
  };
};

/** The invoice statements of an open workspace file. */
export const invoiceStatements = (handle: Pick<WorkspaceHandle, 'memo'>) => handle.memo(statements);

export interface InvoiceDeps {
  db: Database;
  /** The open workspace file, whose memo holds the prepared statements. */
  handle: Pick<WorkspaceHandle, 'memo'>;
  organizationId: string;
  timeZone: string;
  /** Mail settings; the client's name is filled in per invoice. */
  mail: Omit<MailContext, 'clientName'>;
  now: Date;
}

/** 43 characters of base64url: 256 random bits, never derived from the invoice's id or number. */
export const newPublicToken = () => randomBytes(32).toString('base64url');

function resolveDates(input: CreateInput, defaultDays: number, deps: InvoiceDeps) {
  const issueDate = input.issue_date ?? localDate(deps.now, deps.timeZone);
  const dueDate = input.due_date ?? addDays(issueDate, input.due_date_period ?? defaultDays);
  if (dueDate < issueDate) throw invalidField('due_date', `must not be before the issue date ${issueDate}`);
  return { issueDate, dueDate };
}

const isNumberTaken = (err: unknown) =>
  err instanceof Error && 'code' in err && err.code === 'SQLITE_CONSTRAINT_UNIQUE' && /invoices\.number/.test(err.message);

const numberTaken = (number: string) => conflict('invoice_number_taken', `Invoice number ${number} is already used in this workspace`);

/**
 * Endpoint 1. Everything — the invoice, its lines, taxes, projects and recipients, the entries
 * marked billed, the queued e-mail — is written in one immediate transaction, so a rejected
 * request changes nothing and two requests for the same entries are serialised.
 */
export function createInvoice(deps: InvoiceDeps, actor: ActingUser, input: CreateInput): { invoice: InvoiceRecord; queuedMail: number } {
  const st = invoiceStatements(deps.handle);
  const at = deps.now.toISOString();
  try {
    return deps.db.transaction(
      (tx) => {
        const client = tx.select().from(clients).where(eq(clients.id, input.client_id)).get();
        if (!client) throw notFound('client', `No client with id ${input.client_id}`);
        if (client.status !== 'active') throw unprocessable('client_archived', `Client ${client.name} is archived; reactivate it to invoice it`);
        const currency = client.currency;

        const clientProjects = tx
          .select({ id: projects.id })
          .from(projects)
          .where(eq(projects.clientId, client.id))
          .all();
        const clientProjectIds = new Set(clientProjects.map((p) => p.id));
        // An empty list names no projects, the same as leaving project_id out.
        const requestedProjects = input.project_id?.length ? [...new Set(input.project_id)] : null;
        requestedProjects?.forEach((id) => {
          if (!clientProjectIds.has(id)) throw invalidField(`project_id.${input.project_id!.indexOf(id)}`, 'is not a project of this client');
        });

        const { issueDate, dueDate } = resolveDates(input, client.defaultInvoiceDueInDays, deps);

        if (tx.select({ id: invoices.id }).from(invoices).where(eq(invoices.number, input.number)).get()) throw numberTaken(input.number);

        let lines: ComputedLine[];
        if (input.invoice_time_entries) {
          const ids = input.invoice_time_entries.map((l) => l.time_entry_id);
          const entries = new Map(st.entries.all(JSON.stringify(ids)).map((e) => [e.id, e]));
          lines = computeTimeLines(input.invoice_time_entries, entries, {
            clientId: client.id,
            currency,
            allowedProjects: requestedProjects ? new Set(requestedProjects) : null,
          });
        } else {
          lines = computeServiceLines(input.invoice_services ?? [], {
            currency,
            clientProjects: clientProjectIds,
            allowedProjects: requestedProjects ? new Set(requestedProjects) : null,
          });
        }
        const subtotal = sumMinor(
          lines.map((l) => l.amountMinor),
          currency,
        );
        const taxes = computeTaxes(input.tax_details ?? [], subtotal);
        const taxTotal = sumMinor(
          taxes.map((t) => t.amountMinor),
          currency,
        );
        const total = sumMinor([subtotal, taxTotal], currency);
        if (!withinTolerance(input.total, total, currency)) {
          const extra = computedTotalExtra(total, currency);
          throw new AppError(
            'unprocessable',
            'total_mismatch',
            `total ${input.total} does not match the computed total ${extra.computed_total} ${currency} (lines plus selected taxes)`,
            { extra },
          );
        }

        const details = input.invoice_details;
        const recipientIds = [...new Set(details?.recipient_ids ?? [])];
        const byId = new Map(findLiveRecipients(tx, client.id, recipientIds).map((r) => [r.id, r]));
        recipientIds.forEach((id) => {
          if (!byId.has(id)) {
            throw invalidField(`invoice_details.recipient_ids.${details!.recipient_ids!.indexOf(id)}`, 'is not a recipient of this client');
          }
        });

        const sendEmail = input.send_email ?? false;
        const row: InvoiceRow = {
          id: randomUUID(),
          clientId: client.id,
          creatorId: actor.id,
          number: input.number,
          status: sendEmail ? 'sending' : 'draft',
          currency,
          issueDate,
          dueDate,
          dueDatePeriod: input.due_date_period ?? null,
          interval: input.interval ?? null,
          notes: input.notes ?? '',
          subtotalMinor: subtotal,
          taxMinor: taxTotal,
          totalMinor: total,
          includeHoursByPerson: input.include_hours_by_person ?? client.includeHoursByPersonInInvoice,
          includeHoursByTask: input.include_hours_by_task ?? false,
          includeTimeEntries: input.include_time_entries ?? false,
          sendAutomatedReminderEmail: input.send_automated_reminder_email ?? false,
          includePaymentLink: input.include_payment_link ?? false,
          paymentProvider: input.payment_provider ?? null,
          displayTaskName: input.display_task_name ?? true,
          displayPersonName: input.display_person_name ?? true,
          displayDate: input.display_date ?? true,
          displayNote: input.display_note ?? true,
          displayProjectName: input.display_project_name ?? true,
          sendEmail,
          emailSubject: details?.subject ?? null,
          emailMessage: details?.message ?? null,
          attachPdf: details?.attach_pdf_invoice ?? false,
          sendMeACopy: details?.send_me_a_copy ?? false,
          publicToken: newPublicToken(),
          sentAt: null,
          paidAt: null,
          voidedAt: null,
          createdAt: at,
          updatedAt: at,
        };
        tx.insert(invoices).values(row).run();

        for (const line of lines) st.insertLine.run({ ...line, id: randomUUID(), invoiceId: row.id });
        if (taxes.length) tx.insert(invoiceTaxes).values(taxes.map((t) => ({ ...t, id: randomUUID(), invoiceId: row.id }))).run();

        // The invoice's projects: the ones named, else those its lines are on.
        const projectIds = requestedProjects ?? [...new Set(lines.map((l) => l.projectId).filter((p): p is string => p !== null))];
        if (projectIds.length) {
          tx.insert(invoiceProjects).values(projectIds.map((projectId) => ({ invoiceId: row.id, projectId }))).run();
          tx.update(projects).set({ lastInvoiceId: row.id, updatedAt: at }).where(inArray(projects.id, projectIds)).run();
        }
        if (recipientIds.length) tx.insert(invoiceRecipients).values(recipientIds.map((recipientId) => ({ invoiceId: row.id, recipientId }))).run();

        if (input.invoice_time_entries) {
          const ids = lines.map((l) => l.timeEntryId);
          const changed = st.markBilled.run(row.id, at, JSON.stringify(ids)).changes;
          if (changed !== ids.length) {
            throw unprocessable('time_entry_not_unbilled', 'A time entry of this invoice was billed by another invoice at the same moment; nothing was created');
          }
        }
        if (input.interval !== undefined) {
          tx.update(clients).set({ lastInvoiceInterval: input.interval, updatedAt: at }).where(eq(clients.id, client.id)).run();
        }

        let queuedMail = 0;
        if (sendEmail) {
          queuedMail = queueInvoiceMail(tx, row, { ...deps.mail, clientName: client.name }, {
            recipients: recipientIds.map((id) => byId.get(id)!),
            copyTo: row.sendMeACopy ? { email: actor.email, name: `${actor.firstName} ${actor.lastName}`.trim() } : null,
            replyTo: replyToFor(tx, row.id),
            now: deps.now,
          });
        }
        return { invoice: toInvoiceRecord(row, deps.organizationId), queuedMail };
      },
      { behavior: 'immediate' },
    );
  } catch (err) {
    // Two requests with the same new number can both pass the read above; the index decides.
    if (isNumberTaken(err)) throw numberTaken(input.number);
    throw err;
  }
}
