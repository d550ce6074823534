import { z } from 'zod';
import { composeInput, composeInvoice, composeOutput, previewInput, previewInvoice, previewOutput } from '../../domain/invoices/compose.ts';
import { createInvoice } from '../../domain/invoices/create.ts';
import { listDeliveries } from '../../domain/invoices/deliveries.ts';
import { getInvoice } from '../../domain/invoices/get.ts';
import { listInvoices } from '../../domain/invoices/list.ts';
import { markInvoicePaid } from '../../domain/invoices/mark-paid.ts';
import { nextInvoiceNumber } from '../../domain/invoices/next-number.ts';
import { getInvoicePdf } from '../../domain/invoices/pdf.ts';
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
import { viewInvoice, viewOutput } from '../../domain/invoices/view.ts';
import { voidInvoice } from '../../domain/invoices/void.ts';
import { actingUserProcedure, router, workspaceProcedure } from '../init.ts';

export const invoicesRouter = router({
  /** Endpoint 1: generate an invoice from time entries or service lines. */
  create: actingUserProcedure
    .input(createInput)
    .output(createOutput)
    .mutation(({ ctx, input }) => createInvoice(ctx.scope, input)),
  list: workspaceProcedure
    .input(listInput)
    .output(listOutput)
    .query(({ ctx, input }) => listInvoices(ctx.scope, input)),
  /** One invoice with its lines, taxes, projects and recipients. */
  get: workspaceProcedure
    .input(invoiceIdInput)
    .output(getOutput)
    .query(({ ctx, input }) => getInvoice(ctx.scope, input)),
  markPaid: actingUserProcedure
    .input(invoiceIdInput)
    .output(statusChangeOutput)
    .mutation(({ ctx, input }) => markInvoicePaid(ctx.scope, input)),
  /** Voids an unpaid invoice; its time entries become unbilled again. */
  void: actingUserProcedure
    .input(invoiceIdInput)
    .output(statusChangeOutput)
    .mutation(({ ctx, input }) => voidInvoice(ctx.scope, input)),
  /** A proposal only: uniqueness is enforced when the invoice is created (409 invoice_number_taken). */
  nextNumber: workspaceProcedure
    .input(z.object({}).optional())
    .output(nextNumberOutput)
    .query(({ ctx }) => nextInvoiceNumber(ctx.scope)),
  /** The invoice PDF, base64-encoded. */
  pdf: workspaceProcedure
    .input(invoiceIdInput)
    .output(pdfOutput)
    .query(({ ctx, input }) => getInvoicePdf(ctx.scope, input)),
  /** The invoice page: the invoice with its lines described by date, project, task and person. */
  view: workspaceProcedure
    .input(invoiceIdInput)
    .output(viewOutput)
    .query(({ ctx, input }) => viewInvoice(ctx.scope, input)),
  /** The "new invoice" page: the client's projects, recipients, unbilled time and a proposed number. */
  compose: workspaceProcedure
    .input(composeInput)
    .output(composeOutput)
    .query(({ ctx, input }) => composeInvoice(ctx.scope, input)),
  /** The lines, taxes and total an invoice would have (priced as creation prices it); writes nothing. */
  preview: workspaceProcedure
    .input(previewInput)
    .output(previewOutput)
    .query(({ ctx, input }) => previewInvoice(ctx.scope, input)),
  /** Every message of an invoice and its delivery state (pending with attempts, sent, failed). */
  deliveries: workspaceProcedure
    .input(invoiceIdInput)
    .output(deliveriesOutput)
    .query(({ ctx, input }) => listDeliveries(ctx.scope, input)),
});
