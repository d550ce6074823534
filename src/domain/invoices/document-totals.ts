import type { InvoiceDocument } from './document.ts';
import type { Formats } from './format.ts';

/** One row of an invoice's totals block, as the PDF and the public page both print it. */
export interface TotalRow {
  label: string;
  value: string;
  /** The figure a reader looks for: the total, and what is still due (or to be refunded). */
  strong?: boolean;
}

/**
 * Subtotal; each charged tax with its rate and the amount it is charged on (the per-rate taxable
 * amount an EU VAT invoice must show); the total; and, once something was paid, what was paid and
 * the balance still due. Every block adds up: a void invoice shows its credit note taking the total
 * away, so what is left is nothing, or what was paid on it, which is owed back to the client.
 */
export function totalRows(doc: InvoiceDocument, f: Formats): TotalRow[] {
  const { invoice } = doc;
  const rows: TotalRow[] = [{ label: 'Subtotal', value: f.money(invoice.subtotalMinor) }];
  for (const t of doc.taxes.filter((x) => x.selected)) {
    rows.push({ label: `${t.name} ${f.number(Number(t.percentage))}% of ${f.money(invoice.subtotalMinor)}`, value: f.money(t.amountMinor) });
  }
  rows.push({ label: `Total (${invoice.currency})`, value: f.money(invoice.totalMinor), strong: true });
  const paid = doc.paidMinor > 0 ? [{ label: 'Paid', value: f.money(-doc.paidMinor) }] : [];
  if (invoice.kind === 'invoice' && invoice.status === 'void') {
    const note = doc.related ? `credit note ${doc.related.number}` : 'credit note';
    rows.push({ label: `Cancelled by ${note}`, value: f.money(-invoice.totalMinor) }, ...paid);
    rows.push(doc.paidMinor > 0 ? { label: 'To be refunded to you', value: f.money(doc.paidMinor), strong: true } : { label: 'Balance due', value: f.money(0), strong: true });
  } else if (doc.paidMinor > 0) {
    rows.push(...paid, { label: 'Balance due', value: f.money(doc.balanceMinor), strong: true });
  }
  return rows;
}
