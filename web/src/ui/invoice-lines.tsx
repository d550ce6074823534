import { formatHours, formatMoney, formatNumber } from '../format.ts';
import { Table } from './table.tsx';

export interface LineView {
  key: string;
  description: string;
  hours: number | null;
  quantity: number | null;
  rate: number;
  amount: number;
}

interface Totals {
  currency: string;
  subtotal: number;
  taxes: { name: string; percentage: number; amount: number }[];
  total: number;
}

/**
 * A stored line's rate or unit price as charged. A credit note's lines keep the cancelled invoice's
 * prices with their amounts negated; the price takes the amount's sign, so "1 × −100.00 = −100.00"
 * adds up, as on the credit note's PDF and public page.
 */
export function chargedPrice(line: { hourly_rate: number | null; unit_amount: number | null; amount: number }): number {
  const price = line.hourly_rate ?? line.unit_amount ?? 0;
  return line.amount < 0 && price > 0 ? -price : price;
}

/** An invoice's lines with subtotal, taxes and total: the preview before creating and the invoice after. */
export function InvoiceLines({ caption, lines, totals }: { caption: string; lines: LineView[]; totals: Totals }) {
  const money = (n: number) => formatMoney(n, totals.currency);
  const row = (label: string, amount: number, className?: string) => (
    <tr className={className} key={label}>
      <th scope="row" colSpan={3}>
        {label}
      </th>
      <td className="num" data-label={label}>
        {money(amount)}
      </td>
    </tr>
  );
  return (
    <Table
      caption={caption}
      captionHidden
      rows={lines}
      rowKey={(l) => l.key}
      empty="No lines."
      columns={[
        { header: 'Description', cell: (l) => l.description, className: 'wrap' },
        { header: 'Quantity', align: 'end', cell: (l) => (l.hours !== null ? `${formatHours(l.hours)} h` : formatNumber(l.quantity ?? 0, 3)) },
        { header: 'Rate', align: 'end', cell: (l) => money(l.rate) },
        { header: 'Amount', align: 'end', cell: (l) => money(l.amount) },
      ]}
      footer={
        <>
          {row('Subtotal', totals.subtotal)}
          {totals.taxes.map((t) => row(`${t.name} (${formatNumber(t.percentage, 3)} %)`, t.amount))}
          {row('Total', totals.total, 'total')}
        </>
      }
    />
  );
}
