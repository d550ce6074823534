import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { bool, id } from './columns.ts';

export const outboxStatuses = ['pending', 'sent', 'failed'] as const;

/**
 * Every e-mail the product sends. Rows are written in the same transaction as the business change
 * that causes them; the outbox worker delivers them after commit (src/mail/).
 */
export const outbox = sqliteTable(
  'outbox',
  {
    id: id(),
    /** What the message is: `invoice`, `invoice_resend`, `invoice_copy`, `invoice_reminder`, `approval_request`, `approval_digest`, `invite`, `password_reset`, `webhook_disabled`. */
    kind: text('kind').notNull(),
    invoiceId: text('invoice_id'),
    /** The client recipient a message is for; a recipient deleted before delivery gets nothing. */
    recipientId: text('recipient_id'),
    toAddress: text('to_address').notNull(),
    toName: text('to_name'),
    replyTo: text('reply_to'),
    subject: text('subject').notNull(),
    text: text('text').notNull(),
    html: text('html'),
    /**
     * An invoice's message (to the client, or the sender's copy): what stays as queued, the
     * sender's own words (null: the template's) and the copy's addressee. The worker writes the
     * rest (figures, page link, signature) again at delivery from the invoice as it is then, so a
     * payment made while the message waited is not asked for. Null for other messages, and for
     * invoice messages queued before this column, which go as queued.
     */
    words: text('words', { mode: 'json' }).$type<{ message: string | null; copyFor: string | null }>(),
    /** Render the invoice PDF and attach it at delivery time. */
    attachInvoicePdf: bool('attach_invoice_pdf').notNull().default(false),
    status: text('status', { enum: outboxStatuses }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: text('next_attempt_at').notNull(),
    /** Set while a worker is delivering; a claim older than the lease is taken over after a crash. */
    claimedAt: text('claimed_at'),
    lastError: text('last_error'),
    /** Stable Message-ID, so a retried delivery is recognisable as the same message. */
    messageId: text('message_id').notNull(),
    sentAt: text('sent_at'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('outbox_due_idx').on(t.status, t.nextAttemptAt), index('outbox_invoice_idx').on(t.invoiceId)],
);
