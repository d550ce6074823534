import express, { type Request, type Response, type Router } from 'express';
import { cardCheckout } from '../domain/invoices/card-payment.ts';
import { invoicePdf } from '../domain/invoices/pdf.ts';
import { findPublicInvoice } from '../domain/invoices/public.ts';
import { invoicePdfFileName } from '../pdf/invoice.ts';
import { openWorkspaceScope, type AppServices } from '../services.ts';
import { hostOf } from '../trpc/context.ts';
import type { WorkspaceHandle } from '../workspaces/handle.ts';
import { subdomainFromHost } from '../workspaces/host.ts';
import { startCheckout } from './card-payment.ts';
import { invoiceHtml, notFoundPage, page, type PageFacts } from './invoice-html.ts';

/** The workspace of a public request: the Host header selects it exactly as for the API. */
export function workspaceOfRequest(services: AppServices, req: Request): WorkspaceHandle | null {
  const subdomain = subdomainFromHost(hostOf(req, services.config.trustProxy), services.config.baseDomain);
  return subdomain ? services.registry.get(subdomain) : null;
}

/** What the processor's return to the page (`?payment=…`) tells the payer. */
const NOTICES: Record<string, PageFacts['notice']> = {
  success: { kind: 'ok', text: 'Thank you! Your card payment was received; it shows here as soon as the card processor confirms it.' },
  cancelled: { kind: 'info', text: 'The card payment was cancelled; nothing was charged.' },
  unavailable: { kind: 'warn', text: 'Card payment is not available for this invoice right now.' },
};

const secure = (res: Response) => {
  // The token is the credential: keep the page out of caches, search engines and Referer headers.
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Robots-Tag', 'noindex');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  // No script at all; styles inline; images only the logo embedded as data.
  res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'; base-uri 'none'");
};

/** A path under `/invoices/` that does not even decode gets the same 404 page as an unknown token. */
export function answerUnknownInvoicePath(req: Request, res: Response): boolean {
  if (!req.path.startsWith('/invoices/')) return false;
  res.status(404).type('html').send(notFoundPage());
  return true;
}

/**
 * `GET /invoices/<token>`, `/invoices/<token>/pdf` and `POST /invoices/<token>/pay`: the invoice's
 * public page (the target of the payment link), its PDF, and "Pay now", which sends the payer to
 * the card processor's hosted checkout for the balance. No API key: the unguessable token is the
 * credential. Unknown hosts and tokens get the same 404 page.
 */
export function publicInvoiceRouter(services: AppServices): Router {
  const router = express.Router({ caseSensitive: true, strict: false });
  const lookup = (req: Request) => {
    const handle = workspaceOfRequest(services, req);
    if (!handle) return null;
    const { scope } = openWorkspaceScope(services, handle);
    const found = findPublicInvoice(scope, String(req.params.token ?? ''));
    return found && { ...found, scope, href: `/invoices/${found.invoice.publicToken}` };
  };
  const notFound = (res: Response) => res.status(404).type('html').send(notFoundPage());

  router.get('/invoices/:token', (req, res) => {
    secure(res);
    const found = lookup(req);
    if (!found) return void notFound(res);
    const offer = cardCheckout(found.scope, found.invoice);
    const notice = NOTICES[String(req.query.payment ?? '')] ?? null;
    res.status(200).type('html').send(invoiceHtml(found.document(), { pdfHref: `${found.href}/pdf`, payHref: 'plan' in offer ? `${found.href}/pay` : null, notice }));
  });

  router.get('/invoices/:token/pdf', async (req, res) => {
    secure(res);
    const found = lookup(req);
    if (!found) return void notFound(res);
    const pdf = await invoicePdf(found.scope, found.invoice);
    const name = invoicePdfFileName(found.invoice);
    res.status(200).type('application/pdf').setHeader('Content-Disposition', `attachment; filename="${name}"`).send(pdf);
  });

  router.post('/invoices/:token/pay', async (req, res) => {
    secure(res);
    const found = lookup(req);
    if (!found) return void notFound(res);
    const offer = cardCheckout(found.scope, found.invoice);
    if (!('plan' in offer)) return void res.redirect(303, `${found.href}?payment=unavailable`);
    try {
      res.redirect(303, await startCheckout(services.config, offer.plan));
    } catch (err) {
      services.logger.warn({ err, workspace: found.scope.workspace.subdomain, invoice_id: found.invoice.id }, 'card checkout could not be started');
      res.status(502).type('html').send(page('Payment not started', `<div class="sheet"><h1>The card payment could not be started</h1><p>The card processor did not answer. Nothing was charged; please <a href="${found.href}">go back</a> and try again in a moment.</p></div>`));
    }
  });
  return router;
}
