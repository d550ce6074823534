import type { DocumentState } from '../../domain/invoices/document.ts';
import type { PageCursor } from '../cursor.ts';

/** What each state stamps on the first page; an open invoice carries none. */
const STAMPS: Partial<Record<DocumentState, { text: string; color: string }>> = {
  draft: { text: 'DRAFT', color: '#777777' },
  paid: { text: 'PAID', color: '#1d7a38' },
  partially_paid: { text: 'PARTIALLY PAID', color: '#b7791f' },
  overdue: { text: 'OVERDUE', color: '#c2410c' },
  void: { text: 'VOID', color: '#c0262d' },
  credit_note: { text: 'CREDIT NOTE', color: '#1a4fa3' },
};

const SIZE = 15;

/**
 * A rubber stamp (bordered capitals, slightly turned) beside the title, so paid, void, overdue and
 * credit notes are told apart at a glance, printed or on screen.
 */
export function drawStamp(c: PageCursor, state: DocumentState, titleY: number): void {
  const stamp = STAMPS[state];
  if (!stamp) return;
  const { pdf } = c;
  const width = c.measure('bold')(stamp.text, SIZE) + 20;
  const height = SIZE + 12;
  const x = c.left + 215;
  const y = titleY - 2;
  pdf.save();
  pdf.rotate(-8, { origin: [x + width / 2, y + height / 2] });
  pdf.roundedRect(x, y, width, height, 4).lineWidth(2).strokeColor(stamp.color).strokeOpacity(0.85).stroke();
  c.line(stamp.text, x + 10, y + 7, { font: 'bold', size: SIZE, color: stamp.color });
  pdf.restore();
}
