import { and, eq, inArray, lte, max } from 'drizzle-orm';
import { clients, invoiceRecipients, invoiceReminders, invoices, recipients } from '../../db/schema/index.ts';
import type { Scope } from '../scope.ts';
import { addDays, daysBetween, instantAt, localDate } from '../time/calendar.ts';
import { mailContext, queueReminderMail, replyToFor } from './mail.ts';

const REMINDER_EVERY_DAYS = 7;

/** Invoices that get reminders: asked for, and e-mailed (a draft never reached the client). */
const remindable = () => and(eq(invoices.sendAutomatedReminderEmail, true), inArray(invoices.status, ['sending', 'sent']));

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

/**
 * Queues reminders for every unpaid invoice (not paid, not void) with
 * `send_automated_reminder_email`, on its due date and every 7 days after, in the workspace's time
 * zone. Each (invoice, date) is recorded in invoice_reminders in the same transaction as its
 * messages, so a reminder is queued once however often the job runs. Returns messages queued.
 */
export function queueDueReminders(scope: Scope): number {
  const { now } = scope;
  const today = localDate(now, scope.workspace.timeZone);
  const candidates = scope.db
    .select({ id: invoices.id })
    .from(invoices)
    .where(and(remindable(), lte(invoices.dueDate, today)))
    .all();
  let queued = 0;
  for (const { id } of candidates) {
    queued += scope.write((tx) => {
        const invoice = tx.select().from(invoices).where(eq(invoices.id, id)).get();
        if (!invoice || (invoice.status !== 'sending' && invoice.status !== 'sent')) return 0;
        const remindOn = reminderDateFor(invoice.dueDate, today);
        if (!remindOn) return 0;
        const fresh = tx.insert(invoiceReminders).values({ invoiceId: id, remindOn, createdAt: now.toISOString() }).onConflictDoNothing().run();
        if (fresh.changes === 0) return 0;
        const to = tx
          .select({ id: recipients.id, email: recipients.email, name: recipients.name })
          .from(invoiceRecipients)
          .innerJoin(recipients, eq(recipients.id, invoiceRecipients.recipientId))
          .where(and(eq(invoiceRecipients.invoiceId, id), eq(recipients.deleted, false)))
          .all();
        const client = tx.select({ name: clients.name }).from(clients).where(eq(clients.id, invoice.clientId)).get();
        return queueReminderMail(scope, tx, invoice, mailContext(scope, client?.name ?? ''), { recipients: to, replyTo: replyToFor(tx, id), remindOn });
    });
  }
  return queued;
}

/**
 * When the reminders job next has work in this workspace (ms): now when a reminder is due and not
 * yet queued, else the start (local midnight) of the earliest next reminder date; Infinity when no
 * invoice will ever need one.
 */
export function nextReminderAt(scope: Scope): number {
  const { timeZone } = scope.workspace;
  const today = localDate(scope.now, timeZone);
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
