import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { clients, invoiceRecipients, invoiceReminders, invoices, recipients } from '../../db/schema/index.ts';
import type { Scope } from '../scope.ts';
import { addDays, daysBetween, instantAt, localDate } from '../time/calendar.ts';
import { balanceDueMinor, balanceDueSql, OPEN_STATUSES, paidByInvoice, todayIn } from './balance.ts';
import { mailContext, queueReminderMail, replyToFor } from './mail.ts';
import { CANCELLED_PREFIX, CLIENT_INVOICE_KINDS } from './settle.ts';

const REMINDER_EVERY_DAYS = 7;
/**
 * Days after the invoice itself reached the client (sent, resent, or marked sent) in which no
 * reminder is sent: the client is never reminded of an invoice they received less than a week ago.
 * The same interval as the schedule's, so one invoice never means two messages in a week.
 */
export const REMINDER_QUIET_DAYS = REMINDER_EVERY_DAYS;

/** The invoice's own messages to the client (its first sending, resends), as an SQL list. */
const clientKinds = sql.raw(`(${CLIENT_INVOICE_KINDS.map((k) => `'${k}'`).join(', ')})`);

/**
 * When the invoice itself last went to the client: the latest of its `sent_at` (delivered, or
 * marked sent) and the queueing of its latest invoice or resend message that was not cancelled.
 */
const lastInvoiceMailSql = sql<string | null>`(SELECT max("o"."created_at") FROM "outbox" AS "o"
  WHERE "o"."invoice_id" = "invoices"."id" AND "o"."kind" IN ${clientKinds}
  AND NOT ("o"."status" = 'failed' AND coalesce("o"."last_error", '') LIKE ${`${CANCELLED_PREFIX}%`}))`;

/**
 * Whether the invoice's own message (invoice or resend) is still on its way: queued, not yet
 * delivered or given up. No reminder goes out then, or a client would get the reminder with (or
 * before) the invoice once a mail outage ends; its delivery starts the quiet week instead.
 */
const invoiceMailOutSql = sql`EXISTS (SELECT 1 FROM "outbox" AS "o"
  WHERE "o"."invoice_id" = "invoices"."id" AND "o"."kind" IN ${clientKinds} AND "o"."status" = 'pending')`;

const latest = (a: string | null, b: string | null) => (a === null ? b : b === null ? a : a > b ? a : b);

/** The first day a reminder may be sent: `REMINDER_QUIET_DAYS` after the local day the invoice last went out; null when it never did. */
function quietUntil(scope: Pick<Scope, 'workspace'>, sentAt: string | null, lastMailedAt: string | null): string | null {
  const at = latest(sentAt, lastMailedAt);
  return at === null ? null : addDays(localDate(new Date(at), scope.workspace.timeZone), REMINDER_QUIET_DAYS);
}

/** The earliest reminder date on the schedule (due date + 7k) that is not before `notBefore`. */
function firstReminderDate(dueDate: string, notBefore: string | null): string {
  const days = notBefore === null ? 0 : daysBetween(dueDate, notBefore);
  if (days <= 0) return dueDate;
  return addDays(dueDate, Math.ceil(days / REMINDER_EVERY_DAYS) * REMINDER_EVERY_DAYS);
}

/**
 * Invoices that get reminders: asked for, issued (a draft never reached the client), with a
 * balance still due, and not while their own message is still on its way.
 */
const remindable = () =>
  and(eq(invoices.sendAutomatedReminderEmail, true), inArray(invoices.status, [...OPEN_STATUSES]), sql`${balanceDueSql} > 0`, sql`NOT ${invoiceMailOutSql}`);

/**
 * The reminder date due today for an invoice: its due date, or the latest due date + 7k that is
 * not after today. A job that was down for weeks sends one reminder for the latest date, not a
 * burst of missed ones. A date before `notBefore` (the quiet week after the invoice itself was
 * sent) is skipped: null until the next date of the schedule after it.
 */
export function reminderDateFor(dueDate: string, today: string, notBefore: string | null = null): string | null {
  const days = daysBetween(dueDate, today);
  if (days < 0) return null;
  const date = addDays(dueDate, days - (days % REMINDER_EVERY_DAYS));
  return notBefore !== null && date < notBefore ? null : date;
}

/** When the invoice itself last went out (its latest invoice message), for the quiet week, and whether a message of it is still on its way. */
function invoiceMailState(tx: Db, invoiceId: string): { lastMailedAt: string | null; out: boolean } {
  const row = tx.select({ at: lastInvoiceMailSql, out: invoiceMailOutSql.mapWith(Boolean) }).from(invoices).where(eq(invoices.id, invoiceId)).get();
  return { lastMailedAt: row?.at ?? null, out: row?.out ?? false };
}

/** Queues one invoice's reminder for `today` in its own transaction, unless it was queued already. */
function remindOne(scope: Scope, invoiceId: string, today: string): number {
  return scope.write((tx) => {
    const invoice = tx.select().from(invoices).where(eq(invoices.id, invoiceId)).get();
    if (!invoice) return 0;
    const balance = balanceDueMinor(invoice, paidByInvoice(tx, [invoice.id]).get(invoice.id) ?? 0);
    const mail = invoiceMailState(tx, invoice.id);
    const remindOn = reminderDateFor(invoice.dueDate, today, quietUntil(scope, invoice.sentAt, mail.lastMailedAt));
    if (balance <= 0 || !remindOn || mail.out) return 0;
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

/** Whether the reminder of an invoice for a date is recorded (queued once already). */
const reminderStatements = (db: Db) => ({
  recorded: db
    .select({ invoiceId: invoiceReminders.invoiceId })
    .from(invoiceReminders)
    .where(and(eq(invoiceReminders.invoiceId, sql.placeholder('invoiceId')), eq(invoiceReminders.remindOn, sql.placeholder('remindOn'))))
    .prepare(),
});

interface ReminderState {
  id: string;
  dueDate: string;
  /** The first day the quiet week after the invoice went out allows a reminder; null when it never went out. */
  notBefore: string | null;
  /** The reminder date due today, recorded or not; null when none is. */
  dueToday: string | null;
  /** Whether `dueToday`'s reminder is still to be queued. */
  pending: boolean;
}

/**
 * Where each remindable invoice stands today: its reminder date due today and whether that one is
 * still to be queued. Read outside any write, so a pass with nothing due opens no transaction and
 * commits nothing (a commit would wake the jobs that follow writes, this one among them).
 */
function reminderStates(scope: Scope, today: string): ReminderState[] {
  const st = scope.statements(reminderStatements);
  const rows = scope.db
    .select({ id: invoices.id, dueDate: invoices.dueDate, sentAt: invoices.sentAt, lastMailedAt: lastInvoiceMailSql })
    .from(invoices)
    .where(remindable())
    .all();
  return rows.map((row) => {
    const notBefore = quietUntil(scope, row.sentAt, row.lastMailedAt);
    const dueToday = reminderDateFor(row.dueDate, today, notBefore);
    const pending = dueToday !== null && st.recorded.get({ invoiceId: row.id, remindOn: dueToday }) === undefined;
    return { id: row.id, dueDate: row.dueDate, notBefore, dueToday, pending };
  });
}

/**
 * Queues reminders for every invoice with `send_automated_reminder_email` that still has a balance
 * due (balance.ts: issued, not paid in full, not void), on its due date and every 7 days after, in
 * the workspace's time zone, but never in the week after the invoice itself was sent (or resent):
 * a date in that week is skipped for the next one. A partly paid invoice is reminded of what is
 * left. Each (invoice, date) is recorded in invoice_reminders in the same transaction as its
 * messages, so a reminder is queued once however often the job runs; a reminder already recorded
 * is not even looked at in a write. Returns messages queued.
 */
export function queueDueReminders(scope: Scope): number {
  const today = todayIn(scope);
  let queued = 0;
  for (const { id, pending } of reminderStates(scope, today)) if (pending) queued += remindOne(scope, id, today);
  return queued;
}

/**
 * When the reminders job next has work in this workspace (ms): now when a reminder is due and not
 * yet queued, else the start (local midnight) of the earliest next reminder date; Infinity when no
 * invoice will ever need one.
 */
export function nextReminderAt(scope: Scope): number {
  let next = Number.POSITIVE_INFINITY;
  for (const row of reminderStates(scope, todayIn(scope))) {
    if (row.pending) return scope.now.getTime();
    const upcoming = row.dueToday === null ? firstReminderDate(row.dueDate, row.notBefore) : addDays(row.dueToday, REMINDER_EVERY_DAYS);
    next = Math.min(next, instantAt(upcoming, '00:00', scope.workspace.timeZone));
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
