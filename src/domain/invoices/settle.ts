import { and, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { invoices, outbox } from '../../db/schema/index.ts';
import { recordEvent } from '../events.ts';
import type { Scope } from '../scope.ts';
import { summaryOf } from './summaries.ts';

/**
 * The invoice itself as mailed to a client recipient: when it is first sent, or resent (to another
 * recipient, say, while the first one's address is refused). Either, delivered, means the client has
 * the invoice.
 */
export const CLIENT_INVOICE_KINDS = ['invoice', 'invoice_resend'];
/** The messages whose delivery settles an invoice's status (with the sender's copy); reminders do not. */
export const INVOICE_SENDING_KINDS = [...CLIENT_INVOICE_KINDS, 'invoice_copy'];
/**
 * A message cancelled before delivery (invoice voided or paid, recipient deleted) is `failed` with
 * a last_error starting with this; unlike a real failure it does not hold an invoice in `sending`.
 */
export const CANCELLED_PREFIX = 'cancelled:';

/**
 * Called by the mail worker in the transaction that records a message's outcome: once none of an
 * invoice's messages is still open (pending, or failed for a reason other than a cancellation), a
 * `sending` invoice becomes `sent` when a client message (sent or resent) was delivered, or `draft`
 * again when every client message was cancelled, since then the client never received it.
 */
export function settleInvoiceDelivery(scope: Scope, tx: Db, invoiceId: string): void {
  const at = scope.now.toISOString();
  const open = tx
    .select({ id: outbox.id })
    .from(outbox)
    .where(
      and(
        eq(outbox.invoiceId, invoiceId),
        inArray(outbox.kind, INVOICE_SENDING_KINDS),
        or(eq(outbox.status, 'pending'), and(eq(outbox.status, 'failed'), sql`coalesce(${outbox.lastError}, '') NOT LIKE ${`${CANCELLED_PREFIX}%`}`)),
      ),
    )
    .limit(1)
    .get();
  if (open) return;
  const delivered = tx
    .select({ id: outbox.id })
    .from(outbox)
    .where(and(eq(outbox.invoiceId, invoiceId), inArray(outbox.kind, CLIENT_INVOICE_KINDS), eq(outbox.status, 'sent')))
    .limit(1)
    .get();
  const [settled] = tx
    .update(invoices)
    .set(delivered ? { status: 'sent', sentAt: at, updatedAt: at } : { status: 'draft', updatedAt: at })
    .where(and(eq(invoices.id, invoiceId), eq(invoices.status, 'sending')))
    .returning()
    .all();
  if (settled?.status === 'sent') {
    recordEvent(scope, 'invoice.sent', { invoice: summaryOf(scope, tx, settled) });
    return;
  }
  // Paid (in part) while its mail was still out: the status stays, but it was sent now.
  if (!settled && delivered) {
    const [moved] = tx
      .update(invoices)
      .set({ sentAt: at, updatedAt: at })
      .where(and(eq(invoices.id, invoiceId), isNull(invoices.sentAt), inArray(invoices.status, ['partially_paid', 'paid'])))
      .returning()
      .all();
    if (moved) recordEvent(scope, 'invoice.sent', { invoice: summaryOf(scope, tx, moved) });
  }
}
