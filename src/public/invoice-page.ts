import express, { type Request, type Response, type Router } from 'express';
import { hoursBy, type DocumentLine, type InvoiceDocument } from '../domain/invoices/document.ts';
import { invoicePdf } from '../domain/invoices/pdf.ts';
import { findPublicInvoice } from '../domain/invoices/public.ts';
import { lineHours } from '../domain/invoices/records.ts';
import { formatMoney } from '../domain/money.ts';
import { hoursOf } from '../domain/time/hours.ts';
import { invoicePdfFileName } from '../pdf/invoice.ts';
import { openWorkspaceScope, type AppServices } from '../services.ts';
import { hostOf } from '../trpc/context.ts';
import { subdomainFromHost } from '../workspaces/host.ts';

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

const page = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;color:#222;max-width:860px;margin:2rem auto;padding:0 1rem}
table{border-collapse:collapse;width:100%;margin:1rem 0}th,td{padding:.35rem .5rem;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}
th{color:#555;font-weight:600}.num{text-align:right;white-space:nowrap}.totals td{border:0}.total td{font-weight:700;font-size:1.1em}
.meta{color:#555}.status{display:inline-block;padding:.1rem .5rem;border-radius:4px;background:#eee;font-size:.85em;text-transform:uppercase}
a.button{display:inline-block;padding:.5rem 1rem;background:#1a4fa3;color:#fff;border-radius:4px;text-decoration:none}
</style></head><body>${body}</body></html>`;

/** The invoice as HTML; every value from the database goes through escapeHtml. */
export function invoiceHtml(doc: InvoiceDocument, pdfHref: string): string {
  const { invoice } = doc;
  const e = escapeHtml;
  const money = (minor: number | null) => (minor === null ? '' : e(formatMoney(minor, invoice.currency)));
  const timeLines = doc.lines.filter((l) => l.kind === 'time_entry');
  const serviceLines = doc.lines.filter((l) => l.kind === 'service');
  const parts: string[] = [];
  // Like the PDF, the client sees a status only when it matters to them: paid or void.
  const badge = invoice.status === 'paid' || invoice.status === 'void' ? ` <span class="status">${e(invoice.status)}</span>` : '';
  parts.push(`<h1>${e(doc.seller.name)} — Invoice ${e(invoice.number)}${badge}</h1>`);
  parts.push(`<p class="meta">Issued ${e(invoice.issueDate)} · due ${e(invoice.dueDate)}</p>`);
  parts.push(`<p><strong>Bill to:</strong> ${e(doc.client.name)}${doc.client.secondaryName ? `, ${e(doc.client.secondaryName)}` : ''}`);
  if (doc.client.address) parts.push(`<br>${e(doc.client.address).replace(/\r?\n/g, '<br>')}`);
  parts.push('</p>');
  if (timeLines.length) {
    type Col = [string, (l: DocumentLine) => string, boolean];
    const when = (flag: boolean, col: Col): Col[] => (flag ? [col] : []);
    const cols: Col[] = [
      ...when(invoice.displayDate, ['Date', (l) => e(l.date ?? ''), false]),
      ...when(invoice.displayProjectName, ['Project', (l) => e(l.projectName ?? ''), false]),
      ...when(invoice.displayTaskName, ['Task', (l) => e(l.taskName ?? ''), false]),
      ...when(invoice.displayPersonName, ['Person', (l) => e(l.personName ?? ''), false]),
      ...when(invoice.displayNote, ['Notes', (l) => e(l.notes), false]),
      ['Hours', (l) => String(lineHours(l) ?? ''), true],
      ['Rate', (l) => money(l.hourlyRateMinor), true],
      ['Amount', (l) => money(l.amountMinor), true],
    ];
    parts.push(
      `<table><thead><tr>${cols.map(([t, , n]) => `<th${n ? ' class="num"' : ''}>${t}</th>`).join('')}</tr></thead><tbody>` +
        timeLines.map((l) => `<tr>${cols.map(([, f, n]) => `<td${n ? ' class="num"' : ''}>${f(l)}</td>`).join('')}</tr>`).join('') +
        '</tbody></table>',
    );
  }
  if (serviceLines.length) {
    parts.push(
      '<table><thead><tr><th>Description</th><th class="num">Quantity</th><th class="num">Unit price</th><th class="num">Amount</th></tr></thead><tbody>' +
        serviceLines
          .map(
            (l) =>
              `<tr><td>${e(l.notes)}</td><td class="num">${(l.quantityMilli ?? 0) / 1000}</td><td class="num">${money(l.unitAmountMinor)}</td><td class="num">${money(l.amountMinor)}</td></tr>`,
          )
          .join('') +
        '</tbody></table>',
    );
  }
  const totals = [
    `<tr><td>Subtotal</td><td class="num">${money(invoice.subtotalMinor)}</td></tr>`,
    ...doc.taxes.filter((t) => t.selected).map((t) => `<tr><td>${e(t.name)} (${e(t.percentage)}%)</td><td class="num">${money(t.amountMinor)}</td></tr>`),
    `<tr class="total"><td>Total (${e(invoice.currency)})</td><td class="num">${money(invoice.totalMinor)}</td></tr>`,
  ];
  parts.push(`<table class="totals" style="width:auto;margin-left:auto"><tbody>${totals.join('')}</tbody></table>`);
  const summary = (title: string, groups: ReturnType<typeof hoursBy>) =>
    `<h2>${title}</h2><table><tbody>${groups
      .map((g) => `<tr><td>${e(g.label)}</td><td class="num">${hoursOf(g.seconds)} h</td><td class="num">${money(g.amountMinor)}</td></tr>`)
      .join('')}</tbody></table>`;
  if (invoice.includeHoursByPerson && timeLines.length) parts.push(summary('Hours by person', hoursBy(timeLines, (l) => l.personName)));
  if (invoice.includeHoursByTask && timeLines.length) parts.push(summary('Hours by task', hoursBy(timeLines, (l) => (l.projectName ? `${l.projectName} · ${l.taskName ?? ''}` : l.taskName))));
  if (invoice.notes) parts.push(`<h2>Notes</h2><p>${e(invoice.notes).replace(/\r?\n/g, '<br>')}</p>`);
  parts.push(`<p><a class="button" href="${e(pdfHref)}">Download PDF</a></p>`);
  return page(`Invoice ${invoice.number} — ${doc.seller.name}`, parts.join('\n'));
}

const notFoundPage = () =>
  page('Invoice not found', '<h1>Invoice not found</h1><p>This link does not lead to an invoice. Please check the address you were sent.</p>');

/**
 * `GET /invoices/<token>` and `/invoices/<token>/pdf`: the invoice's public page, the target of the
 * payment link. No API key: the unguessable token is the credential, and the Host header selects
 * the workspace exactly as for the API. Unknown hosts and tokens get the same 404 page.
 */
export function publicInvoiceRouter(services: AppServices): Router {
  const router = express.Router({ caseSensitive: true, strict: false });
  /** The workspace comes from the Host header exactly as for the API; the token is the credential. */
  const lookup = (req: Request) => {
    const subdomain = subdomainFromHost(hostOf(req, services.config.trustProxy), services.config.baseDomain);
    const handle = subdomain ? services.registry.get(subdomain) : null;
    if (!handle) return null;
    const { scope } = openWorkspaceScope(services, handle);
    const found = findPublicInvoice(scope, String(req.params.token ?? ''));
    return found && { ...found, scope, token: found.invoice.publicToken };
  };
  const secure = (res: Response) => {
    // The token is the credential: keep the page out of caches, search engines and Referer headers.
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Robots-Tag', 'noindex');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
  };
  router.get('/invoices/:token', (req, res) => {
    secure(res);
    const found = lookup(req);
    if (!found) {
      res.status(404).type('html').send(notFoundPage());
      return;
    }
    res.status(200).type('html').send(invoiceHtml(found.document(), `/invoices/${found.token}/pdf`));
  });
  router.get('/invoices/:token/pdf', async (req, res) => {
    secure(res);
    const found = lookup(req);
    if (!found) {
      res.status(404).type('html').send(notFoundPage());
      return;
    }
    const { invoice } = found;
    const pdf = await invoicePdf(found.scope, invoice);
    const name = invoicePdfFileName(invoice.number);
    res.status(200).type('application/pdf').setHeader('Content-Disposition', `attachment; filename="${name}"`).send(pdf);
  });
  return router;
}
