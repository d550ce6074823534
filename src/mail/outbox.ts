import { randomUUID } from 'node:crypto';
import type { Db } from '../db/index.ts';
import { outbox } from '../db/schema/index.ts';
import type { Scope } from '../domain/scope.ts';

export interface OutgoingMail {
  /** `invoice`, `invoice_resend`, `invoice_copy`, `invoice_reminder`, `approval_request`, `approval_digest`, `invite`, `password_reset`, `webhook_disabled`. */
  kind: string;
  to: { address: string; name?: string | null };
  replyTo?: string | null;
  subject: string;
  text: string;
  html?: string | null;
  invoiceId?: string | null;
  /** The client recipient the message is for, so it is not delivered once they are deleted. */
  recipientId?: string | null;
  attachInvoicePdf?: boolean;
  /** An invoice's message: the words composed again with the figures at delivery (`outbox.words`). */
  words?: { message: string | null; copyFor: string | null } | null;
}

/**
 * Queues an e-mail in the same transaction as the change that causes it; nothing is sent here. The
 * scope wakes the outbox worker once the call has returned (its transaction committed).
 */
export function enqueueMail(scope: Pick<Scope, 'now' | 'links' | 'after'>, tx: Db, mail: OutgoingMail): string {
  const id = randomUUID();
  const at = scope.now.toISOString();
  tx.insert(outbox)
    .values({
      id,
      kind: mail.kind,
      invoiceId: mail.invoiceId ?? null,
      recipientId: mail.recipientId ?? null,
      toAddress: mail.to.address,
      toName: mail.to.name ?? null,
      replyTo: mail.replyTo ?? null,
      subject: mail.subject,
      text: mail.text,
      html: mail.html ?? null,
      attachInvoicePdf: mail.attachInvoicePdf ?? false,
      words: mail.words ?? null,
      status: 'pending',
      attempts: 0,
      nextAttemptAt: at,
      claimedAt: null,
      lastError: null,
      messageId: `<${id}@${scope.links.messageIdDomain}>`,
      sentAt: null,
      createdAt: at,
    })
    .run();
  scope.after('outbox');
  return id;
}
