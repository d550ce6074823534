import * as z from 'zod';
import { composeInput, composeInvoice, composeOutput, previewInput, previewInvoice, previewOutput } from '../../domain/invoices/compose.ts';
import { createInvoice } from '../../domain/invoices/create.ts';
import { deleteInvoice } from '../../domain/invoices/delete.ts';
import { listDeliveries } from '../../domain/invoices/deliveries.ts';
import { getInvoice } from '../../domain/invoices/get.ts';
import { listInvoices } from '../../domain/invoices/list.ts';
import { nextInvoiceNumber } from '../../domain/invoices/next-number.ts';
import { deletePayment, listPayments, markInvoicePaid, recordPayment } from '../../domain/invoices/payments.ts';
import { getInvoicePdf } from '../../domain/invoices/pdf.ts';
import {
  createInput,
  createOutput,
  deleteOutput,
  deletePaymentInput,
  deliveriesOutput,
  getOutput,
  invoiceIdInput,
  listInput,
  listOutput,
  markPaidInput,
  nextNumberOutput,
  paymentOutput,
  paymentsOutput,
  pdfOutput,
  recordPaymentInput,
  resendInput,
  sendInput,
  sendOutput,
  statusChangeOutput,
  updateInput,
  voidInput,
  voidOutput,
} from '../../domain/invoices/schemas.ts';
import { markInvoiceSent, resendInvoice, sendInvoice } from '../../domain/invoices/sending.ts';
import { updateInvoice } from '../../domain/invoices/update.ts';
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
  /** Edits a draft: fields, lines, taxes, projects; re-priced with endpoint 1's rules. */
  update: actingUserProcedure
    .input(updateInput)
    .output(getOutput)
    .mutation(({ ctx, input }) => updateInvoice(ctx.scope, input)),
  /** Deletes a draft; its time entries become unbilled again. */
  delete: actingUserProcedure
    .input(invoiceIdInput)
    .output(deleteOutput)
    .mutation(({ ctx, input }) => deleteInvoice(ctx.scope, input)),
  /** E-mails a draft (invoice or credit note) with endpoint 1's invoice_details. */
  send: actingUserProcedure
    .input(sendInput)
    .output(sendOutput)
    .mutation(({ ctx, input }) => sendInvoice(ctx.scope, input)),
  /** E-mails an issued invoice or credit note again to the recipients chosen. */
  resend: actingUserProcedure
    .input(resendInput)
    .output(sendOutput)
    .mutation(({ ctx, input }) => resendInvoice(ctx.scope, input)),
  /** A draft the agency delivered itself becomes sent, without e-mail. */
  markSent: actingUserProcedure
    .input(invoiceIdInput)
    .output(statusChangeOutput)
    .mutation(({ ctx, input }) => markInvoiceSent(ctx.scope, input)),
  /** Records a payment (partial or whole); at most the balance due. */
  recordPayment: actingUserProcedure
    .input(recordPaymentInput)
    .output(paymentOutput)
    .mutation(({ ctx, input }) => recordPayment(ctx.scope, input)),
  /** Records a payment of the whole balance due. */
  markPaid: actingUserProcedure
    .input(markPaidInput)
    .output(statusChangeOutput)
    .mutation(({ ctx, input }) => markInvoicePaid(ctx.scope, input)),
  /** An invoice's payments, and card payments that were not recorded. */
  payments: workspaceProcedure
    .input(invoiceIdInput)
    .output(paymentsOutput)
    .query(({ ctx, input }) => listPayments(ctx.scope, input)),
  /** Deletes a payment recorded by mistake (not one the card processor reported). */
  deletePayment: actingUserProcedure
    .input(deletePaymentInput)
    .output(statusChangeOutput)
    .mutation(({ ctx, input }) => deletePayment(ctx.scope, input)),
  /** Voids an invoice; an issued one gets a credit note. Its time entries become unbilled again. */
  void: actingUserProcedure
    .input(voidInput)
    .output(voidOutput)
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
