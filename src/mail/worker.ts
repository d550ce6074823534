import { and, eq, inArray, isNull, lte, or, sql } from 'drizzle-orm';
import type Mail from 'nodemailer/lib/mailer';
import type { Database, Db } from '../db/index.ts';
import { outbox, recipients } from '../db/schema/index.ts';
import { invoicePdf } from '../domain/invoices/pdf.ts';
import { invoiceMailAtDelivery } from '../domain/invoices/mail.ts';
import { findInvoice } from '../domain/invoices/queries.ts';
import { CANCELLED_PREFIX, CLIENT_INVOICE_KINDS, INVOICE_SENDING_KINDS, settleInvoiceDelivery } from '../domain/invoices/settle.ts';
import type { Scope } from '../domain/scope.ts';
import { readIdentity } from '../domain/workspace/identity.ts';
import { invoicePdfFileName } from '../pdf/invoice.ts';
import { openWorkspaceScope, runInScope, type AppServices } from '../services.ts';
import type { WorkspaceHandle } from '../workspaces/handle.ts';
import { createMailTransport, type MailTransport } from './transport.ts';

/** After this many failed attempts a message is `failed` for good (about 4 hours of retrying). */
export const MAX_ATTEMPTS = 8;
/**
 * One delivery attempt (rendering, then sending) is abandoned after this: room for connecting, the
 * greeting and the full 10-minute wait for the reply to the end of DATA (SMTP_TIMEOUTS), plus
 * minutes for the rest, which normally takes seconds. It bounds an attempt, so the lease can be longer.
 */
export const ATTEMPT_MS = 15 * 60_000;
/**
 * A claim older than this was abandoned (its worker died mid-attempt) and is taken over. Longer than
 * any attempt (ATTEMPT_MS), so a send still waiting for the server's answer is never taken over and
 * sent a second time.
 */
export const LEASE_MS = 20 * 60_000;
/** last_error of a message whose attempt never reported back (the process was killed, say). */
export const INTERRUPTED = 'delivery interrupted';
/** Messages delivered per workspace and pass, so one busy workspace cannot starve the others. */
const PER_PASS = 200;
/** Messages addressed to a client recipient: not delivered once that recipient is deleted. */
const RECIPIENT_KINDS = ['invoice', 'invoice_resend', 'invoice_reminder'];

/** Wait before attempt n+1 after n failures: 1, 2, 4, 8 ... minutes, at most 2 hours. */
const backoffMs = (failures: number) => Math.min(60_000 * 2 ** Math.max(0, failures - 1), 2 * 3_600_000);

type OutboxRow = typeof outbox.$inferSelect;

/**
 * Claims one due message: pending, due, and not claimed by a live worker. The claim is a single
 * conditional UPDATE, so two workers (or two processes on one file) can never hold the same message.
 * Taking over an expired claim counts the attempt that never reported back, so a message that
 * kills or hangs every worker fails for good after MAX_ATTEMPTS instead of being taken over forever.
 */
function claimOne(scope: Scope): OutboxRow | null {
  const at = scope.now.toISOString();
  const staleBefore = new Date(scope.now.getTime() - LEASE_MS).toISOString();
  return scope.write((tx) => {
    const due = and(eq(outbox.status, 'pending'), lte(outbox.nextAttemptAt, at), or(isNull(outbox.claimedAt), lte(outbox.claimedAt, staleBefore)));
    for (;;) {
      const row = tx.select().from(outbox).where(due).orderBy(outbox.nextAttemptAt, outbox.createdAt).limit(1).get();
      if (!row) return null;
      const interrupted = row.claimedAt !== null;
      const attempts = row.attempts + (interrupted ? 1 : 0);
      if (interrupted && attempts >= MAX_ATTEMPTS) {
        // Failed for good, like any last failure (recordFailure): the invoice settles on the rest.
        tx.update(outbox).set({ status: 'failed', attempts, claimedAt: null, lastError: INTERRUPTED }).where(eq(outbox.id, row.id)).run();
        settleAfter(scope, tx, row);
        continue;
      }
      const claim = { claimedAt: at, attempts, ...(interrupted && { lastError: INTERRUPTED }) };
      const changed = tx.update(outbox).set(claim).where(and(eq(outbox.id, row.id), due)).run().changes;
      return changed === 1 ? { ...row, ...claim } : null;
    }
  });
}

/**
 * When this workspace next has a message to deliver (ms on the service clock): the earliest retry
 * of a pending message, or the end of a claim's lease. Infinity when nothing is pending, so the
 * worker's timer can leave the workspace alone until new mail wakes it.
 */
export function nextDueAt(db: Database): number {
  const row = db
    .select({
      due: sql<string | null>`min(case when ${outbox.claimedAt} is null then ${outbox.nextAttemptAt}
        else max(${outbox.nextAttemptAt}, strftime('%Y-%m-%dT%H:%M:%fZ', ${outbox.claimedAt}, ${`+${LEASE_MS / 1000} seconds`})) end)`,
    })
    .from(outbox)
    .where(eq(outbox.status, 'pending'))
    .get();
  return row?.due ? Date.parse(row.due) : Number.POSITIVE_INFINITY;
}

/** Mail that carries a one-time link (src/domain/accounts/mail.ts). */
const ONE_TIME_LINK_KINDS = ['invite', 'password_reset'];

/**
 * A delivered message's text as the outbox keeps it: a one-time link's token is taken out once the
 * link is in the member's mailbox, so the file (and every backup of it) holds no usable invite or
 * reset link; the message still reads as what was sent.
 */
const keptText = (row: OutboxRow): Partial<OutboxRow> =>
  ONE_TIME_LINK_KINDS.includes(row.kind) ? { text: row.text.replace(/#token=[A-Za-z0-9_-]+/g, '#token=(removed once delivered)') } : {};

/**
 * Settles the invoice of a message of its sending that was just delivered, cancelled or given up,
 * in the transaction recording it (settleInvoiceDelivery: only client messages still pending keep
 * it waiting).
 */
function settleAfter(scope: Scope, tx: Db, row: OutboxRow): void {
  if (row.invoiceId && INVOICE_SENDING_KINDS.includes(row.kind)) settleInvoiceDelivery(scope, tx, row.invoiceId);
}

/**
 * Marks a delivered message sent, keeping the text it was delivered with, and settles its invoice.
 * `delivered` is what went out: an invoice message is composed again at delivery (composeMessage).
 */
function recordSent(scope: Scope, row: OutboxRow, delivered: Pick<OutboxRow, 'text' | 'html'>): void {
  const at = scope.now.toISOString();
  const sent = { ...row, ...delivered };
  const composed = { ...(sent.text !== row.text && { text: sent.text }), ...(sent.html !== row.html && { html: sent.html }) };
  scope.write((tx) => {
    tx.update(outbox)
      .set({ status: 'sent', sentAt: at, attempts: sql`${outbox.attempts} + 1`, claimedAt: null, lastError: null, ...composed, ...keptText(sent) })
      .where(eq(outbox.id, row.id))
      .run();
    settleAfter(scope, tx, row);
  });
}

/**
 * Whether a client message of the sending that queued this copy (same invoice, same transaction,
 * hence the same created_at) was delivered, or is still pending to a live recipient.
 */
function copyHasClientMessage(tx: Db, copy: OutboxRow): boolean {
  const live = or(isNull(outbox.recipientId), eq(recipients.deleted, false));
  const sibling = tx
    .select({ id: outbox.id })
    .from(outbox)
    .leftJoin(recipients, eq(recipients.id, outbox.recipientId))
    .where(
      and(
        eq(outbox.invoiceId, copy.invoiceId!),
        inArray(outbox.kind, CLIENT_INVOICE_KINDS),
        eq(outbox.createdAt, copy.createdAt),
        or(eq(outbox.status, 'sent'), and(eq(outbox.status, 'pending'), live)),
      ),
    )
    .limit(1)
    .get();
  return sibling !== undefined;
}

/**
 * Why a claimed message is no longer to be delivered, or null. A client message whose recipient
 * was deleted after it was queued (docs/design.md §5: a deleted recipient gets no mail). The
 * sender's copy when no client message of its sending reached or can still reach the client: it
 * says "your copy of the e-mail sent to the client".
 */
function cancellationReason(tx: Db, row: OutboxRow): string | null {
  if (row.recipientId && RECIPIENT_KINDS.includes(row.kind)) {
    const recipient = tx.select({ deleted: recipients.deleted }).from(recipients).where(eq(recipients.id, row.recipientId)).get();
    return recipient && !recipient.deleted ? null : 'the recipient was deleted before delivery';
  }
  if (row.kind === 'invoice_copy' && row.invoiceId && !copyHasClientMessage(tx, row)) return 'no client message was delivered';
  return null;
}

/** Cancels a claimed message that is no longer to be delivered (above); the invoice settles on the rest. */
function cancelIfUnwanted(scope: Scope, row: OutboxRow): boolean {
  return scope.write((tx) => {
    const reason = cancellationReason(tx, row);
    if (!reason) return false;
    tx.update(outbox)
      .set({ status: 'failed', lastError: `${CANCELLED_PREFIX} ${reason}`, claimedAt: null })
      .where(eq(outbox.id, row.id))
      .run();
    settleAfter(scope, tx, row);
    return true;
  });
}

/**
 * Records a failed attempt: retried later, or failed for good after MAX_ATTEMPTS, when the invoice
 * it belongs to settles on the rest of its messages (settleInvoiceDelivery). Only while the
 * message is still this attempt's (pending, with this attempt's claim): a cancellation made during
 * the attempt (a payment recorded, the invoice voided, the recipient deleted) stands, else the
 * retry would deliver a reminder to a client who has paid. Returns 'cancelled' when it did.
 */
function recordFailure(scope: Scope, row: OutboxRow, err: unknown): 'retry' | 'failed' | 'cancelled' {
  const failures = row.attempts + 1;
  const message = (err instanceof Error ? err.message : String(err)).slice(0, 1000);
  const final = failures >= MAX_ATTEMPTS;
  return scope.write((tx) => {
    const changed = tx
      .update(outbox)
      .set({
        attempts: failures,
        status: final ? 'failed' : 'pending',
        lastError: message,
        claimedAt: null,
        nextAttemptAt: final ? row.nextAttemptAt : new Date(scope.now.getTime() + backoffMs(failures)).toISOString(),
      })
      .where(and(eq(outbox.id, row.id), eq(outbox.status, 'pending'), row.claimedAt === null ? isNull(outbox.claimedAt) : eq(outbox.claimedAt, row.claimedAt)))
      .run().changes;
    if (changed === 0) return 'cancelled';
    if (!final) return 'retry';
    settleAfter(scope, tx, row);
    return 'failed';
  });
}

interface DeliveryResult {
  sent: number;
  retried: number;
  failed: number;
  /** Not delivered: the recipient was deleted, or a copy's client messages were all cancelled. */
  cancelled: number;
  /** The pass stopped at its size limit with messages possibly still due: run another at once. */
  more: boolean;
}

/** The address of `MAIL_FROM` (`hourbook <no-reply@example.com>` → `no-reply@example.com`). */
const addressOf = (mailFrom: string) => /<([^<>]+)>\s*$/.exec(mailFrom)?.[1]?.trim() ?? mailFrom.trim();

/** The text and HTML a message is delivered with. */
type Body = Pick<OutboxRow, 'text' | 'html'>;

/**
 * The message as nodemailer sends it, with the invoice's PDF attached when it asks for it, and the
 * body it carries. It comes from the workspace: the sender name of its identity (read at delivery,
 * so a change applies to mail still waiting) with the address of `MAIL_FROM`. An invoice message
 * (to the client, or the sender's copy) states the invoice's figures as they are now, like the PDF
 * rendered now: a payment recorded while it waited is not asked for again (invoiceMailAtDelivery).
 */
async function composeMessage(scope: Scope, mailFrom: string, row: OutboxRow): Promise<{ message: Mail.Options & { messageId: string }; body: Body }> {
  const body: Body = (INVOICE_SENDING_KINDS.includes(row.kind) && invoiceMailAtDelivery(scope, row)) || { text: row.text, html: row.html };
  const message: Mail.Options & { messageId: string } = {
    from: { name: readIdentity(scope).senderName, address: addressOf(mailFrom) },
    to: row.toName ? { name: row.toName, address: row.toAddress } : row.toAddress,
    subject: row.subject,
    text: body.text,
    messageId: row.messageId,
    headers: { 'X-Hourbook-Message-Kind': row.kind },
    ...(body.html ? { html: body.html } : {}),
    ...(row.replyTo ? { replyTo: row.replyTo } : {}),
  };
  if (row.attachInvoicePdf && row.invoiceId) {
    const invoice = findInvoice(scope.db, row.invoiceId);
    const content = await invoicePdf(scope, invoice);
    message.attachments = [{ filename: invoicePdfFileName(invoice), content, contentType: 'application/pdf' }];
  }
  return { message, body };
}

/**
 * Runs `attempt` until it settles or `deadline` aborts, whichever comes first. The transport gets the
 * signal too and closes its connection; work that cannot be stopped (a hung render) is left behind.
 */
function withinDeadline<T>(deadline: AbortSignal, attempt: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abandon = () => reject(new Error(`delivery attempt abandoned after ${ATTEMPT_MS / 60_000} minutes`));
    deadline.addEventListener('abort', abandon, { once: true });
    attempt.then(resolve, reject).finally(() => deadline.removeEventListener('abort', abandon));
  });
}

/**
 * One pass of the outbox worker over one workspace: claim a due message, deliver it, record the
 * outcome, repeat. The database is updated right after each successful send, so a message is
 * delivered again only if the process dies between the server's acceptance and that write
 * (at-least-once with a window of one message; the stable Message-ID lets mail systems spot it).
 */
export async function deliverOutbox(handle: WorkspaceHandle, services: AppServices, transport?: MailTransport): Promise<DeliveryResult> {
  const result: DeliveryResult = { sent: 0, retried: 0, failed: 0, cancelled: 0, more: false };
  const { scope } = openWorkspaceScope(services, handle);
  let own: MailTransport | null = null;
  try {
    for (let i = 0; ; i++) {
      if (i === PER_PASS) {
        result.more = true;
        break;
      }
      // Rows of a shared transaction still open are visible on this connection: commit it first,
      // so only committed mail is claimed, and send it once it is on disk.
      handle.commits.flush();
      const row = runInScope(services, handle, claimOne);
      if (!row) break;
      await handle.commits.synced();
      if (runInScope(services, handle, (scope) => cancelIfUnwanted(scope, row))) {
        result.cancelled++;
        continue;
      }
      let delivered: Body;
      try {
        own ??= transport ? null : createMailTransport(services.config, handle.subdomain);
        const via = transport ?? own!;
        const deadline = AbortSignal.timeout(ATTEMPT_MS);
        const attempt = composeMessage(scope, services.config.mailFrom, row).then(async ({ message, body }) => {
          await via.send(message, row.id, deadline);
          return body;
        });
        delivered = await withinDeadline(deadline, attempt);
      } catch (err) {
        const outcome = runInScope(services, handle, (scope) => recordFailure(scope, row, err));
        result[outcome === 'failed' ? 'failed' : outcome === 'retry' ? 'retried' : 'cancelled']++;
        services.logger.warn({ err, outbox_id: row.id, workspace: handle.subdomain, outcome }, 'mail delivery failed');
        continue;
      }
      runInScope(services, handle, (scope) => recordSent(scope, row, delivered));
      result.sent++;
    }
  } finally {
    own?.close();
  }
  return result;
}
