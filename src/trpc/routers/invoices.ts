import { publicUrlFor } from '../../config.ts';
import { createInvoice, type InvoiceDeps } from '../../domain/invoices/create.ts';
import { documentFor } from '../../domain/invoices/document.ts';
import { domainOfAddress } from '../../domain/invoices/mail.ts';
import { findInvoice, getInvoiceDetail, listDeliveries, listInvoices, nextInvoiceNumber } from '../../domain/invoices/read.ts';
import { toInvoiceSummary } from '../../domain/invoices/records.ts';
import {
  createInput,
  createOutput,
  deliveriesOutput,
  getOutput,
  invoiceIdInput,
  listInput,
  listOutput,
  nextNumberOutput,
  pdfOutput,
  statusChangeOutput,
} from '../../domain/invoices/schemas.ts';
import { markInvoicePaid, voidInvoice } from '../../domain/invoices/status.ts';
import { cachedInvoicePdf, invoicePdfFileName } from '../../pdf/invoice.ts';
import { actingUserProcedure, requireAdmin, router, workspaceProcedure, type Authenticated } from '../init.ts';
import type { Context } from '../context.ts';
import { z } from 'zod';

type Ctx = Context & Authenticated;

const publicBase = (ctx: Ctx) => publicUrlFor(ctx.config, ctx.workspace.subdomain);

const depsOf = (ctx: Ctx): InvoiceDeps => ({
  db: ctx.db,
  handle: ctx.handle,
  organizationId: ctx.workspace.id,
  timeZone: ctx.workspace.timeZone,
  mail: {
    workspaceName: ctx.workspace.name,
    publicBase: publicBase(ctx),
    messageIdDomain: domainOfAddress(ctx.config.mailFrom),
  },
  now: ctx.clock(),
});

export const invoicesRouter = router({
  /** Endpoint 1: generate an invoice from time entries or service lines. */
  create: actingUserProcedure
    .input(createInput)
    .output(createOutput)
    .mutation(({ ctx, input }) => {
      requireAdmin(ctx.actor, 'create invoices');
      const { invoice, queuedMail } = createInvoice(depsOf(ctx), ctx.actor, input);
      if (queuedMail > 0) ctx.notifyOutbox();
      return { notice_code: 'invoice_created' as const, invoice };
    }),
  list: workspaceProcedure
    .input(listInput)
    .output(listOutput)
    .query(({ ctx, input }) => listInvoices(ctx.db, input, ctx.workspace.id, publicBase(ctx))),
  /** One invoice with its lines, taxes, projects and recipients. */
  get: workspaceProcedure
    .input(invoiceIdInput)
    .output(getOutput)
    .query(({ ctx, input }) => ({ invoice: getInvoiceDetail(ctx.db, input.invoice_id, ctx.workspace.id, publicBase(ctx)) })),
  markPaid: actingUserProcedure
    .input(invoiceIdInput)
    .output(statusChangeOutput)
    .mutation(({ ctx, input }) => {
      requireAdmin(ctx.actor, 'record payments');
      return { invoice: toInvoiceSummary(markInvoicePaid(ctx.db, input.invoice_id, ctx.clock()), ctx.workspace.id, publicBase(ctx)) };
    }),
  /** Voids an unpaid invoice; its time entries become unbilled again. */
  void: actingUserProcedure
    .input(invoiceIdInput)
    .output(statusChangeOutput)
    .mutation(({ ctx, input }) => {
      requireAdmin(ctx.actor, 'void invoices');
      return { invoice: toInvoiceSummary(voidInvoice(ctx.db, input.invoice_id, ctx.clock()), ctx.workspace.id, publicBase(ctx)) };
    }),
  /** A proposal only: uniqueness is enforced when the invoice is created (409 invoice_number_taken). */
  nextNumber: workspaceProcedure
    .input(z.object({}).optional())
    .output(nextNumberOutput)
    .query(({ ctx }) => ({ number: nextInvoiceNumber(ctx.db) })),
  /** The invoice PDF, base64-encoded. */
  pdf: workspaceProcedure
    .input(invoiceIdInput)
    .output(pdfOutput)
    .query(async ({ ctx, input }) => {
      const invoice = findInvoice(ctx.db, input.invoice_id);
      const bytes = await cachedInvoicePdf({ workspace: ctx.workspace.subdomain, invoiceId: invoice.id, updatedAt: invoice.updatedAt }, () =>
        documentFor(ctx.db, invoice, { workspaceName: ctx.workspace.name, publicBase: publicBase(ctx) }),
      );
      return { filename: invoicePdfFileName(invoice.number), content_type: 'application/pdf' as const, base64: bytes.toString('base64') };
    }),
  /** Every message of an invoice and its delivery state (pending with attempts, sent, failed). */
  deliveries: workspaceProcedure
    .input(invoiceIdInput)
    .output(deliveriesOutput)
    .query(({ ctx, input }) => listDeliveries(ctx.db, input.invoice_id)),
});
