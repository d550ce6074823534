import { hoursBy, type DocumentLine, type InvoiceDocument } from '../../domain/invoices/document.ts';
import type { Formats } from '../../domain/invoices/format.ts';
import { lineHours } from '../../domain/invoices/records.ts';
import { minorToDecimalString } from '../../domain/money.ts';
import { hoursOf } from '../../domain/time/hours.ts';
import { lineHeight, type PageCursor } from '../cursor.ts';
import { fitText } from '../fit.ts';
import { drawTable, type Column, type Lead } from '../table.ts';

type LineColumn = Column<DocumentLine>;

const hoursText = (f: Formats, hours: number | null) => (hours === null ? '' : f.number(hours));
const quantityText = (f: Formats, milli: number | null) => (milli === null ? '' : f.number(Number(minorToDecimalString(milli, 3)), 3));
const money = (f: Formats, minor: number | null) => (minor === null ? '' : f.money(minor));

/** The same text on every line (one project, one person): said once above the table instead. */
const SHARED: (keyof Pick<DocumentLine, 'projectName' | 'taskName' | 'personName'>)[] = ['projectName', 'taskName', 'personName'];
const sharedValue = (lines: DocumentLine[], key: (typeof SHARED)[number]) => {
  const first = lines[0]?.[key];
  return lines.length > 1 && first && lines.every((l) => l[key] === first) ? first : null;
};

/**
 * The columns of the time lines: those whose display flag is on (less a column whose value is the
 * same on every line, given in the caption instead), then hours, rate, amount.
 */
function timeColumns(doc: InvoiceDocument, f: Formats, lines: DocumentLine[]): LineColumn[] {
  const { invoice } = doc;
  const when = (flag: boolean, column: LineColumn) => (flag ? [column] : []);
  const varies = (key: (typeof SHARED)[number]) => sharedValue(lines, key) === null;
  return [
    ...when(invoice.displayDate, { title: 'Date', align: 'left', fit: 'line', cell: (l) => (l.date ? f.day(l.date) : '') }),
    ...when(invoice.displayProjectName && varies('projectName'), { title: 'Project', align: 'left', fit: 'wrap', cell: (l) => l.projectName ?? '' }),
    ...when(invoice.displayTaskName && varies('taskName'), { title: 'Task', align: 'left', fit: 'wrap', cell: (l) => l.taskName ?? '' }),
    ...when(invoice.displayPersonName && varies('personName'), { title: 'Person', align: 'left', fit: 'wrap', cell: (l) => l.personName ?? '' }),
    ...when(invoice.displayNote, { title: 'Notes', align: 'left', fit: 'wrap', grow: true, cell: (l) => l.notes }),
    { title: 'Hours', align: 'right', fit: 'line', cell: (l) => hoursText(f, lineHours(l)) },
    { title: 'Rate', align: 'right', fit: 'line', cell: (l) => money(f, l.hourlyRateMinor) },
    { title: 'Amount', align: 'right', fit: 'line', cell: (l) => money(f, l.amountMinor) },
  ];
}

function serviceColumns(doc: InvoiceDocument, f: Formats, lines: DocumentLine[]): LineColumn[] {
  const project: LineColumn[] =
    doc.invoice.displayProjectName && lines.some((l) => l.projectName) ? [{ title: 'Project', align: 'left', fit: 'wrap', cell: (l) => l.projectName ?? '' }] : [];
  return [
    { title: 'Description', align: 'left', fit: 'wrap', grow: true, cell: (l) => l.notes },
    ...project,
    { title: 'Quantity', align: 'right', fit: 'line', cell: (l) => quantityText(f, l.quantityMilli) },
    { title: 'Unit price', align: 'right', fit: 'line', cell: (l) => money(f, l.unitAmountMinor) },
    { title: 'Amount', align: 'right', fit: 'line', cell: (l) => money(f, l.amountMinor) },
  ];
}

/**
 * The invoice's lines: time lines and service lines, each in a table fitted to its content; the
 * last rows stay on one page with the `keepRoom` points that follow (the totals).
 */
export function drawLines(c: PageCursor, doc: InvoiceDocument, f: Formats, keepRoom: number): void {
  const time = doc.lines.filter((l) => l.kind === 'time_entry');
  const services = doc.lines.filter((l) => l.kind === 'service');
  if (time.length) drawTable(c, timeColumns(doc, f, time), time, { keepRoom: services.length ? 0 : keepRoom, lead: caption(c, doc, time) });
  if (services.length) drawTable(c, serviceColumns(doc, f, services), services, { keepRoom });
}

/**
 * "Project: Website relaunch · Person: Zoë Müller" for what every time line shares, drawn by the
 * table above its header (so it goes to a new page with the first rows, never alone).
 */
function caption(c: PageCursor, doc: InvoiceDocument, lines: DocumentLine[]): Lead | undefined {
  const { invoice } = doc;
  const shown = { projectName: invoice.displayProjectName, taskName: invoice.displayTaskName, personName: invoice.displayPersonName };
  const labels = { projectName: 'Project', taskName: 'Task', personName: 'Person' };
  const parts = SHARED.flatMap((key) => {
    const value = shown[key] ? sharedValue(lines, key) : null;
    return value ? [`${labels[key]}: ${value}`] : [];
  });
  if (!parts.length) return undefined;
  const fitted = fitText(parts.join('  ·  '), c.width, c.measure('body'), { size: 9.5, minSize: 7, maxLines: 3 });
  return {
    height: fitted.lines.length * lineHeight(fitted.size) + 6,
    draw: () => {
      c.y = c.lines(fitted, c.left + 3, c.y, { size: fitted.size }) + 6;
    },
  };
}

/** A summary's heading, drawn by its table on the page of the table's header and first rows. */
function heading(c: PageCursor, title: string): Lead {
  return {
    height: 18,
    draw: () => {
      c.line(title, c.left, c.y, { font: 'bold', size: 11 });
      c.y += 18;
    },
  };
}

type Row = string[];
const rowColumns = (titles: [string, 'left' | 'right', 'wrap' | 'line'][]): Column<Row>[] =>
  titles.map(([title, align, fit], i) => ({ title, align, fit, grow: i === 0, cell: (r) => r[i] ?? '' }));

/** Hours by person, by task, and the time-entry listing, each when the invoice asks for it. */
export function drawSummaries(c: PageCursor, doc: InvoiceDocument, f: Formats): void {
  const { invoice } = doc;
  const time = doc.lines.filter((l) => l.kind === 'time_entry');
  if (!time.length) return;
  const groups = (key: (l: DocumentLine) => string | null) =>
    hoursBy(time, key).map((g) => [g.label, f.number(g.hours), f.money(g.amountMinor)]);
  if (invoice.includeHoursByPerson) {
    const columns = rowColumns([['Person', 'left', 'wrap'], ['Hours', 'right', 'line'], ['Amount', 'right', 'line']]);
    drawTable(c, columns, groups((l) => l.personName), { lead: heading(c, 'Hours by person') });
  }
  if (invoice.includeHoursByTask) {
    const task = (l: DocumentLine) => (l.projectName ? `${l.projectName} · ${l.taskName ?? ''}` : l.taskName);
    const columns = rowColumns([['Task', 'left', 'wrap'], ['Hours', 'right', 'line'], ['Amount', 'right', 'line']]);
    drawTable(c, columns, groups(task), { lead: heading(c, 'Hours by task') });
  }
  if (invoice.includeTimeEntries) {
    const rows = time.map((l) => [l.date ? f.day(l.date) : '', l.personName ?? '', l.taskName ?? '', l.notes, hoursText(f, l.entrySeconds === null ? null : hoursOf(l.entrySeconds)), hoursText(f, lineHours(l))]);
    const columns = rowColumns([['Date', 'left', 'line'], ['Person', 'left', 'wrap'], ['Task', 'left', 'wrap'], ['Notes', 'left', 'wrap'], ['Recorded', 'right', 'line'], ['Billed', 'right', 'line']]);
    drawTable(c, columns.map((col, i) => ({ ...col, grow: i === 3 })), rows, { lead: heading(c, 'Time entries') });
  }
}
