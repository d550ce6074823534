import { and, eq, inArray, isNull, lte, max, sql } from 'drizzle-orm';
import { clients, invoiceRecipients, invoiceReminders, invoices, recipients } from '../../db/schema/index.ts';
import type { Scope } from '../scope.ts';
import { addDays, daysBetween, instantAt } from '../time/calendar.ts';
import { balanceDueMinor, balanceDueSql, OPEN_STATUSES, paidByInvoice, todayIn } from './balance.ts';
import { mailContext, queueReminderMail, replyToFor } from './mail.ts';

const REMINDER_EVERY_DAYS = 7;

/**
 * Invoices that get reminders: asked for, issued (a draft never reached the client) and with a
 * balance still due.
 */
const remindable = () => and(eq(invoices.sendAutomatedReminderEmail, true), inArray(invoices.status, [...OPEN_STATUSES]), sql`${balanceDueSql} > 0`);

/**
 * The reminder date due today for an invoice: its due date, or the latest due date + 7k that is
 * not after today. A job that was down for weeks sends one reminder for the latest date, not a
 * burst of missed ones.
 */
export function reminderDateFor(dueDate: string, today: string): string | null {
  const days = daysBetween(dueDate, today);
  if (days < 0) return null;
  return addDays(dueDate, days - (days % REMINDER_EVERY_DAYS));
}

/** Queues one invoice's reminder for `today` in its own transaction, unless it was queued already. */
function remindOne(scope: Scope, invoiceId: string, today: string): number {
  return scope.write((tx) => {
    const invoice = tx.select().from(invoices).where(eq(invoices.id, invoiceId)).get();
    if (!invoice) return 0;
    const balance = balanceDueMinor(invoice, paidByInvoice(tx, [invoice.id]).get(invoice.id) ?? 0);
    const remindOn = reminderDateFor(invoice.dueDate, today);
    if (balance <= 0 || !remindOn) return 0;
    const fresh = tx.insert(invoiceReminders).values({ invoiceId, remindOn, createdAt: scope.now.toISOString() }).onConflictDoNothing().run();
    if (fresh.changes === 0) return 0;
    const to = tx
      .select({ id: recipients.id, email: recipients.email, name: recipients.name })
      .from(invoiceRecipients)
      .innerJoin(recipients, eq(recipients.id, invoiceRecipients.recipientId))
      .where(and(eq(invoiceRecipients.invoiceId, invoiceId), eq(recipients.deleted, false)))
      .all();
    const client = tx.select({ name: clients.name }).from(clients).where(eq(clients.id, invoice.clientId)).get();
    const ctx = mailContext(scope, tx, client?.name ?? '');
    return queueReminderMail(scope, tx, invoice, ctx, { recipients: to, replyTo: replyToFor(tx, invoiceId, ctx.identity), remindOn, balanceMinor: balance });
  });
}

/**
 * Queues reminders for every invoice with `send_automated_reminder_email` that still has a balance
 * due (balance.ts: issued, not paid in full, not void), on its due date and every 7 days after, in
 * the workspace's time zone. A partly paid invoice is reminded of what is left. Each (invoice,
 * date) is recorded in invoice_reminders in the same transaction as its messages, so a reminder is
 * queued once however often the job runs. Returns messages queued.
 */
export function queueDueReminders(scope: Scope): number {
  const today = todayIn(scope);
  const candidates = scope.db
    .select({ id: invoices.id })
    .from(invoices)
    .where(and(remindable(), lte(invoices.dueDate, today)))
    .all();
  let queued = 0;
  for (const { id } of candidates) queued += remindOne(scope, id, today);
  return queued;
}

/**
 * When the reminders job next has work in this workspace (ms): now when a reminder is due and not
 * yet queued, else the start (local midnight) of the earliest next reminder date; Infinity when no
 * invoice will ever need one.
 */
export function nextReminderAt(scope: Scope): number {
  const { timeZone } = scope.workspace;
  const today = todayIn(scope);
  const rows = scope.db
    .select({ dueDate: invoices.dueDate, lastReminder: max(invoiceReminders.remindOn) })
    .from(invoices)
    .leftJoin(invoiceReminders, eq(invoiceReminders.invoiceId, invoices.id))
    .where(remindable())
    .groupBy(invoices.id)
    .all();
  let next = Number.POSITIVE_INFINITY;
  for (const { dueDate, lastReminder } of rows) {
    const dueToday = reminderDateFor(dueDate, today);
    if (dueToday !== null && dueToday !== lastReminder) return scope.now.getTime();
    next = Math.min(next, instantAt(dueToday === null ? dueDate : addDays(dueToday, REMINDER_EVERY_DAYS), '00:00', timeZone));
  }
  return next;
}

/**
 * When an open invoice next becomes overdue (ms): now when one already is and its event is not yet
 * recorded, else the local midnight after the earliest due date still ahead; Infinity when none.
 */
export function nextOverdueAt(scope: Scope): number {
  const today = todayIn(scope);
  const row = scope.db
    .select({ dueDate: sql<string | null>`min(${invoices.dueDate})` })
    .from(invoices)
    .where(and(isNull(invoices.overdueAt), inArray(invoices.status, [...OPEN_STATUSES]), sql`${balanceDueSql} > 0`))
    .get();
  if (!row?.dueDate) return Number.POSITIVE_INFINITY;
  return row.dueDate < today ? scope.now.getTime() : instantAt(addDays(row.dueDate, 1), '00:00', scope.workspace.timeZone);
}
