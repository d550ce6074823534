import { desc, eq } from 'drizzle-orm';
import type * as z from 'zod';
import type { Db } from '../../db/index.ts';
import { invoices, type invoiceKinds } from '../../db/schema/index.ts';
import type { Scope } from '../scope.ts';
import type { nextNumberOutput } from './schemas.ts';
import { requireAdmin } from '../access.ts';

/**
 * The number after `last`: its trailing digits plus one, zero padding kept (`INV-0041` →
 * `INV-0042`, `2026/099` → `2026/100`, `INV-9999` → `INV-10000`); a number without trailing
 * digits gets `-2` appended ("the second one").
 */
export function incrementNumber(last: string): string {
  const m = /^(.*?)(\d+)$/.exec(last);
  if (!m) return `${last}-2`;
  const [, prefix = '', digits = ''] = m;
  const next = (BigInt(digits) + 1n).toString();
  return prefix + next.padStart(digits.length, '0');
}

/** Where each series starts: invoices and credit notes are numbered apart. */
const FIRST_NUMBER: Record<(typeof invoiceKinds)[number], string> = { invoice: 'INV-0001', credit_note: 'CN-0001' };

/**
 * The next free number of a series (invoices, or credit notes): after the most recently created
 * document of that kind, skipping numbers already used by any document (numbers are unique
 * across both).
 */
export function nextNumberOf(db: Db, kind: (typeof invoiceKinds)[number]): string {
  const last = db
    .select({ number: invoices.number })
    .from(invoices)
    .where(eq(invoices.kind, kind))
    .orderBy(desc(invoices.createdAt), desc(invoices.id))
    .limit(1)
    .get();
  let candidate = last ? incrementNumber(last.number) : FIRST_NUMBER[kind];
  for (let i = 0; i < 1000; i++) {
    if (!db.select({ id: invoices.id }).from(invoices).where(eq(invoices.number, candidate)).get()) break;
    candidate = incrementNumber(candidate);
  }
  return candidate;
}

/**
 * tRPC `invoices.nextNumber`: proposes the next invoice number from the most recently created
 * invoice. A proposal is only a read: two callers may get the same one, and the unique index
 * decides at create time (the loser gets 409 invoice_number_taken and asks again).
 */
export function nextInvoiceNumber(scope: Scope): z.output<typeof nextNumberOutput> {
  requireAdmin(scope, 'see invoices');
  return { number: nextNumberOf(scope.db, 'invoice') };
}
