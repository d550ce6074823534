import { asc, eq } from 'drizzle-orm';
import type * as z from 'zod';
import { outbox } from '../../db/schema/index.ts';
import type { Scope } from '../scope.ts';
import { findInvoice } from './queries.ts';
import type { deliveriesOutput, invoiceIdInput } from './schemas.ts';
import { requireAdmin } from '../access.ts';

/** tRPC `invoices.deliveries`: every message queued for an invoice (sending, reminders, copies), oldest first. */
export function listDeliveries(scope: Scope, input: z.output<typeof invoiceIdInput>): z.output<typeof deliveriesOutput> {
  requireAdmin(scope, 'see invoices');
  const invoice = findInvoice(scope.db, input.invoice_id);
  const rows = scope.db.select().from(outbox).where(eq(outbox.invoiceId, invoice.id)).orderBy(asc(outbox.createdAt), asc(outbox.id)).all();
  return {
    items: rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      to_address: r.toAddress,
      to_name: r.toName,
      subject: r.subject,
      status: r.status,
      attempts: r.attempts,
      next_attempt_at: r.nextAttemptAt,
      last_error: r.lastError,
      message_id: r.messageId,
      sent_at: r.sentAt,
      created_at: r.createdAt,
    })),
  };
}
