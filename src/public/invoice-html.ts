import { hoursBy, supplyOf, totalHours, type DocumentLine, type DocumentState, type InvoiceDocument } from '../domain/invoices/document.ts';
import { hoursOf } from '../domain/time/hours.ts';
import { totalRows } from '../domain/invoices/document-totals.ts';
import { formatsFor, type Formats } from '../domain/invoices/format.ts';
import { lineHours } from '../domain/invoices/records.ts';
import { minorToDecimalString } from '../domain/money.ts';
import { escapeHtml as e } from '../mail/templates/layout.ts';
import { PAGE_CSS } from './styles.ts';

/** Everything the page shows beyond the document: where its links go, card payment, a notice. */
export interface PageFacts {
  pdfHref: string;
  /** The form action of "Pay now", when card payment is offered. */
  payHref: string | null;
  notice: { kind: 'ok' | 'warn' | 'info'; text: string } | null;
}

/** A whole page; its empty icon keeps browsers from asking for /favicon.ico, which is not there (a 404 in the payer's console). */
export const page = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><link rel="icon" href="data:,"><title>${e(title)}</title><style>${PAGE_CSS}</style></head>
<body><main>${body}</main></body></html>`;

const STATE_LABELS: Record<DocumentState, string> = {
  draft: 'Draft',
  open: 'Open',
  partially_paid: 'Partially paid',
  paid: 'Paid',
  overdue: 'Overdue',
  void: 'Void',
  credit_note: 'Credit note',
};

/** The seller: logo (an image the browser draws, never markup of ours), name, address, VAT id. */
function sellerHtml(doc: InvoiceDocument): string {
  const s = doc.seller;
  const logo = s.logo ? `<img src="data:${s.logo.mime};base64,${s.logo.bytes.toString('base64')}" alt="${e(s.name)}">` : '';
  const who = `<div class="who"><strong dir="auto">${e(s.name)}</strong>${s.address ? `<address dir="auto">${e(s.address)}</address>` : ''}${s.taxId ? `<div>VAT ID: ${e(s.taxId)}</div>` : ''}</div>`;
  return `<header class="seller">${logo}${who}</header>`;
}

function buyerHtml(doc: InvoiceDocument): string {
  const c = doc.client;
  const lines = [c.secondaryName ? `<div dir="auto">${e(c.secondaryName)}</div>` : '', c.address ? `<address dir="auto">${e(c.address)}</address>` : '', c.taxId ? `<div>VAT ID: ${e(c.taxId)}</div>` : ''];
  return `<section><p class="label">Bill to</p><strong dir="auto">${e(c.name)}</strong>${lines.join('')}</section>`;
}

/** The date of supply, or the service period (the days of the time billed), as the PDF states it. */
function supplyRow(doc: InvoiceDocument, f: Formats): [string, string] {
  const supply = supplyOf(doc);
  return supply.from === supply.to ? ['Date of supply', f.day(supply.from)] : ['Service period', `${f.day(supply.from)} – ${f.day(supply.to)}`];
}

/** What is owed and by when, with "Pay now" and the PDF: the part a payer came for. */
function dueHtml(doc: InvoiceDocument, f: Formats, facts: PageFacts): string {
  const { invoice } = doc;
  const credit = invoice.kind === 'credit_note';
  const headline = credit ? 'Credit' : doc.balanceMinor > 0 ? 'Amount due' : invoice.status === 'paid' ? 'Paid in full' : 'Total';
  const amount = credit || doc.balanceMinor === 0 ? invoice.totalMinor : doc.balanceMinor;
  const rows: [string, string][] = [
    [credit ? 'Credit note no.' : 'Invoice no.', invoice.number],
    ['Issue date', f.day(invoice.issueDate)],
    supplyRow(doc, f),
    ...(credit ? [] : ([['Due date', f.day(invoice.dueDate)]] as [string, string][])),
    ['Total', f.money(invoice.totalMinor)],
    ...(doc.paidMinor > 0 ? ([['Paid', f.money(doc.paidMinor)]] as [string, string][]) : []),
  ];
  const pay = facts.payHref ? `<form method="post" action="${e(facts.payHref)}"><button class="button primary" type="submit">Pay now</button></form>` : '';
  return `<section class="due"><p class="label">${headline}</p><div class="amount">${e(f.money(amount))}</div>
<dl>${rows.map(([k, v]) => `<dt>${e(k)}</dt><dd>${e(v)}</dd>`).join('')}</dl>
<div class="actions">${pay}<a class="button" href="${e(facts.pdfHref)}">Download PDF</a></div></section>`;
}

/** The invoice's relation to another document: its credit note, or the invoice a credit note cancels. */
function relatedHtml(doc: InvoiceDocument): string {
  const r = doc.related;
  if (!r) return doc.invoice.status === 'void' ? '<p class="notice warn">This invoice was cancelled. Please do not pay it.</p>' : '';
  const link = `<a href="${e(r.publicUrl)}">${e(r.number)}</a>`;
  return doc.invoice.kind === 'credit_note'
    ? `<p class="notice">This credit note cancels invoice ${link}.</p>`
    : `<p class="notice warn">This invoice was cancelled by credit note ${link}. Please do not pay it.</p>`;
}

type Col = { title: string; cell: (l: DocumentLine) => string; num?: boolean; text?: boolean; nowrap?: boolean };

function linesHtml(doc: InvoiceDocument, f: Formats): string {
  const { invoice } = doc;
  const when = (flag: boolean, col: Col): Col[] => (flag ? [col] : []);
  const money = (m: number | null) => (m === null ? '' : f.money(m));
  const time: Col[] = [
    ...when(invoice.displayDate, { title: 'Date', cell: (l) => (l.date ? f.day(l.date) : ''), nowrap: true }),
    ...when(invoice.displayProjectName, { title: 'Project', cell: (l) => l.projectName ?? '' }),
    ...when(invoice.displayTaskName, { title: 'Task', cell: (l) => l.taskName ?? '' }),
    ...when(invoice.displayPersonName, { title: 'Person', cell: (l) => l.personName ?? '' }),
    ...when(invoice.displayNote, { title: 'Notes', cell: (l) => l.notes, text: true }),
    { title: 'Hours', cell: (l) => f.number(lineHours(l) ?? 0), num: true },
    { title: 'Rate', cell: (l) => money(l.hourlyRateMinor), num: true },
    { title: 'Amount', cell: (l) => money(l.amountMinor), num: true },
  ];
  const services: Col[] = [
    { title: 'Description', cell: (l) => l.notes, text: true },
    { title: 'Quantity', cell: (l) => f.number(Number(minorToDecimalString(l.quantityMilli ?? 0, 3)), 3), num: true },
    { title: 'Unit price', cell: (l) => money(l.unitAmountMinor), num: true },
    { title: 'Amount', cell: (l) => money(l.amountMinor), num: true },
  ];
  const timeLines = doc.lines.filter((l) => l.kind === 'time_entry');
  const hours = timeLines.length ? `<p class="muted">Total hours: ${e(f.number(totalHours(doc.lines)))}</p>` : '';
  return linesTable(time, timeLines) + hours + linesTable(services, doc.lines.filter((l) => l.kind === 'service'));
}

/** A table of lines, one row each, that stacks into labelled rows on a phone. */
function linesTable(cols: Col[], rows: DocumentLine[]): string {
  if (!rows.length) return '';
  const head = cols.map((c) => `<th${c.num ? ' class="num"' : ''}>${c.title}</th>`).join('');
  // What a person typed (names, notes) is isolated, so Hebrew or Arabic keeps its own direction.
  const value = (c: Col, l: DocumentLine) => (c.num || c.nowrap ? e(c.cell(l)) : `<bdi>${e(c.cell(l))}</bdi>`);
  const cell = (c: Col, l: DocumentLine) => `<td data-label="${c.title}"${c.num ? ' class="num"' : c.text ? ' class="text"' : c.nowrap ? ' class="nowrap"' : ''}>${value(c, l)}</td>`;
  return `<table class="lines"><thead><tr>${head}</tr></thead><tbody>${rows.map((l) => `<tr>${cols.map((c) => cell(c, l)).join('')}</tr>`).join('')}</tbody></table>`;
}

/** Each time entry billed, with the hours recorded and the hours billed (`include_time_entries`), as on the PDF. */
function timeEntriesHtml(time: DocumentLine[], f: Formats): string {
  const hours = (h: number | null) => (h === null ? '' : f.number(h));
  const cols: Col[] = [
    { title: 'Date', cell: (l) => (l.date ? f.day(l.date) : ''), nowrap: true },
    { title: 'Person', cell: (l) => l.personName ?? '' },
    { title: 'Task', cell: (l) => l.taskName ?? '' },
    { title: 'Notes', cell: (l) => l.notes, text: true },
    { title: 'Recorded', cell: (l) => hours(l.entrySeconds === null ? null : hoursOf(l.entrySeconds)), num: true },
    { title: 'Billed', cell: (l) => hours(lineHours(l)), num: true },
  ];
  return `<h2>Time entries</h2>${linesTable(cols, time)}`;
}

function totalsHtml(doc: InvoiceDocument, f: Formats): string {
  const rows = totalRows(doc, f).map((r) => `<tr${r.strong ? ' class="strong"' : ''}><td>${e(r.label)}</td><td class="num">${e(r.value)}</td></tr>`);
  return `<table class="totals"><tbody>${rows.join('')}</tbody></table>`;
}

/** Payments received, hours summaries, notes and how to pay, each only when there is something to say. */
function detailsHtml(doc: InvoiceDocument, f: Formats): string {
  const { invoice } = doc;
  const parts: string[] = [];
  if (doc.payments.length) {
    const rows = doc.payments.map((p) => `<tr><td>${e(f.day(p.paidOn))}</td><td>${e(p.method.replaceAll('_', ' '))}${p.reference ? ` · <bdi>${e(p.reference)}</bdi>` : ''}</td><td class="num">${e(f.money(p.amountMinor))}</td></tr>`);
    parts.push(`<h2>Payments received</h2><table><tbody>${rows.join('')}</tbody></table>`);
  }
  const time = doc.lines.filter((l) => l.kind === 'time_entry');
  const summary = (title: string, key: (l: DocumentLine) => string | null) =>
    `<h2>${title}</h2><table><tbody>${hoursBy(time, key)
      .map((g) => `<tr><td>${e(g.label)}</td><td class="num">${e(f.number(g.hours))} h</td><td class="num">${e(f.money(g.amountMinor))}</td></tr>`)
      .join('')}</tbody></table>`;
  if (invoice.includeHoursByPerson && time.length) parts.push(summary('Hours by person', (l) => l.personName));
  if (invoice.includeHoursByTask && time.length) parts.push(summary('Hours by task', (l) => (l.projectName ? `${l.projectName} · ${l.taskName ?? ''}` : l.taskName)));
  if (invoice.includeTimeEntries && time.length) parts.push(timeEntriesHtml(time, f));
  if (invoice.notes) parts.push(`<h2>Notes</h2><p dir="auto" class="written">${e(invoice.notes)}</p>`);
  if (doc.seller.paymentInstructions && doc.balanceMinor > 0) parts.push(`<h2>How to pay</h2><p dir="auto" class="written">${e(doc.seller.paymentInstructions)}</p>`);
  return parts.join('');
}

/** The invoice (or credit note) as a page; every value from the database goes through escapeHtml. */
export function invoiceHtml(doc: InvoiceDocument, facts: PageFacts): string {
  const { invoice } = doc;
  const f = formatsFor(doc.seller.locale, invoice.currency);
  const kind = invoice.kind === 'credit_note' ? 'Credit note' : 'Invoice';
  const notice = facts.notice ? `<p class="notice ${facts.notice.kind}">${e(facts.notice.text)}</p>` : '';
  const body = `<div class="sheet">${sellerHtml(doc)}
<h1>${kind} ${e(invoice.number)} <span class="badge ${doc.state}">${STATE_LABELS[doc.state]}</span></h1>
${notice}${relatedHtml(doc)}
<div class="grid">${buyerHtml(doc)}${dueHtml(doc, f, facts)}</div>
<h2>Details</h2>${linesHtml(doc, f)}${totalsHtml(doc, f)}${detailsHtml(doc, f)}</div>
${doc.seller.invoiceFooter ? `<footer dir="auto">${e(doc.seller.invoiceFooter)}</footer>` : ''}`;
  // The page's words are English whatever the locale its amounts and dates are written in; `lang`
  // tells screen readers the language of the words.
  return page(`${kind} ${invoice.number} — ${doc.seller.name}`, body);
}

export const notFoundPage = () =>
  page('Invoice not found', '<div class="sheet"><h1>Invoice not found</h1><p>This link does not lead to an invoice. Please check the address you were sent.</p></div>');
