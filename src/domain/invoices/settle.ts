import { and, eq, inArray, isNull } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { invoices, outbox, payments } from '../../db/schema/index.ts';
import { recordEvent } from '../events.ts';
import type { Scope } from '../scope.ts';
import { summaryOf } from './summaries.ts';

/**
 * The invoice itself as mailed to a client recipient: when it is first sent, or resent (to another
 * recipient, say, while the first one's address is refused). Either, delivered, means the client has
 * the invoice.
 */
export const CLIENT_INVOICE_KINDS = ['invoice', 'invoice_resend'];
/**
 * The messages of an invoice's sending: the client's, and the sender's copy. The worker settles the
 * invoice when one of them is delivered, cancelled or given up; only the client's decide how.
 */
export const INVOICE_SENDING_KINDS = [...CLIENT_INVOICE_KINDS, 'invoice_copy'];
/**
 * A message cancelled before delivery (invoice voided or paid, recipient deleted) is `failed` with
 * a last_error starting with this; unlike a real failure it does not hold an invoice in `sending`.
 */
export const CANCELLED_PREFIX = 'cancelled:';

const isCancelled = (lastError: string | null) => (lastError ?? '').startsWith(CANCELLED_PREFIX);

/** An invoice's messages to the client (first sending and resends): how each stands. */
const clientMessages = (tx: Db, invoiceId: string) =>
  tx
    .select({ status: outbox.status, lastError: outbox.lastError })
    .from(outbox)
    .where(and(eq(outbox.invoiceId, invoiceId), inArray(outbox.kind, CLIENT_INVOICE_KINDS)))
    .all();

/** Whether a message of the invoice to the client is still on its way (pending: queued or retrying). */
export const clientMailPending = (tx: Db, invoiceId: string): boolean => clientMessages(tx, invoiceId).some((m) => m.status === 'pending');

/**
 * Called by the mail worker in the transaction that records a message's outcome (delivered,
 * cancelled, or failed for good). Only a client message still pending keeps a `sending` invoice
 * waiting; the sender's copy never does. Once none is pending:
 * - a client message (sent or resent) was delivered: the invoice is `sent` (`sent_at`, `invoice.sent`),
 *   whatever happened to other recipients or to the copy: the client has it;
 * - none was, and one failed for good (an address refused): it stays `sending`, since the client
 *   never got it; a resend that is delivered settles it, or `invoices.markSent` (delivered otherwise);
 * - every client message was cancelled: `draft` again; unless money was ever taken on it (a card
 *   payment through its page, refunded since): the client has it, and a draft must hold no money
 *   (it could be deleted, its payments with it), so it is `sent`.
 */
export function settleInvoiceDelivery(scope: Scope, tx: Db, invoiceId: string): void {
  const at = scope.now.toISOString();
  const messages = clientMessages(tx, invoiceId);
  if (messages.some((m) => m.status === 'pending')) return;
  const delivered = messages.some((m) => m.status === 'sent');
  if (!delivered && messages.some((m) => m.status === 'failed' && !isCancelled(m.lastError))) return;
  const handedOver = delivered || tx.select({ id: payments.id }).from(payments).where(eq(payments.invoiceId, invoiceId)).limit(1).get() !== undefined;
  const [settled] = tx
    .update(invoices)
    .set(handedOver ? { status: 'sent', sentAt: at, updatedAt: at } : { status: 'draft', updatedAt: at })
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
