import * as z from 'zod';
import { email } from '../../domain/fields.ts';
import { exportCsv } from '../../domain/reports/export.ts';
import { heldPieces } from '../../exports/held-pieces.ts';
import { invoiceDraft } from '../../domain/reports/invoice-draft.ts';
import { paidPerMonth } from '../../domain/reports/paid-per-month.ts';
import { receivablesReport } from '../../domain/reports/receivables.ts';
import { reportFilterOptions } from '../../domain/reports/filter-options.ts';
import {
  exportInput,
  filterOptionsInput,
  filterOptionsOutput,
  invoiceDraftInput,
  invoiceDraftOutput,
  paidPerMonthInput,
  paidPerMonthOutput,
  receivablesInput,
  receivablesOutput,
  timeReportInput,
  timeReportOutput,
  unbilledInput,
  unbilledOutput,
  utilisationInput,
  utilisationOutput,
} from '../../domain/reports/schemas.ts';
import { timeReport } from '../../domain/reports/time-report.ts';
import { unbilledReport } from '../../domain/reports/unbilled.ts';
import { utilisationReport } from '../../domain/reports/utilisation.ts';
import type { Scope } from '../../domain/scope.ts';
import { actingAs, router, workspaceProcedure } from '../init.ts';

/**
 * Reports may name the person asking (`email`): a Member then sees only their own time and the
 * time of the projects they manage. Without `email` the workspace's key speaks for the workspace,
 * and a session or personal key for its member; such a member naming anyone else is refused.
 */
const reportProcedure = workspaceProcedure
  .input(z.object({ email: email.optional() }))
  .use(({ ctx, input, next }) => next({ ctx: { scope: input.email ? actingAs(ctx.scope, input.email) : (ctx.scope as Scope) } }));

export const reportsRouter = router({
  /** Hours and money over a range of days, grouped by one or two of client, project, task, person, day, week, month. */
  time: reportProcedure
    .input(timeReportInput)
    .output(timeReportOutput)
    .query(({ ctx, input }) => timeReport(ctx.scope, input)),
  /** The clients, projects and people the caller may narrow a time report to (the app's filter lists). */
  filterOptions: reportProcedure
    .input(filterOptionsInput)
    .output(filterOptionsOutput)
    .query(({ ctx }) => reportFilterOptions(ctx.scope)),
  /** What could be invoiced now, per client and project. */
  unbilled: reportProcedure
    .input(unbilledInput)
    .output(unbilledOutput)
    .query(({ ctx, input }) => unbilledReport(ctx.scope, input)),
  /** The `invoices.create` input (endpoint 1's body) that bills one client's unbilled work; writes nothing. */
  invoiceDraft: reportProcedure
    .input(invoiceDraftInput)
    .output(invoiceDraftOutput)
    .query(({ ctx, input }) => invoiceDraft(ctx.scope, input)),
  /** Balances due with their ageing, per invoice, client and currency. Owner/Admin. */
  receivables: reportProcedure
    .input(receivablesInput)
    .output(receivablesOutput)
    .query(({ ctx, input }) => receivablesReport(ctx.scope, input)),
  /** Money received per month and currency. Owner/Admin. */
  paidPerMonth: reportProcedure
    .input(paidPerMonthInput)
    .output(paidPerMonthOutput)
    .query(({ ctx, input }) => paidPerMonth(ctx.scope, input)),
  /** Recorded and billable hours per person and ISO week. */
  utilisation: reportProcedure
    .input(utilisationInput)
    .output(utilisationOutput)
    .query(({ ctx, input }) => utilisationReport(ctx.scope, input)),
  /**
   * Any report, or the time entries, invoices with lines, or payments, as CSV: `{filename,
   * content_type, pieces}` where `pieces` streams the text. Downloaded over HTTP at
   * `GET /api/exports/<report>.csv` (docs/reports.md). The pieces are read after this returns
   * (tRPC streams them with httpBatchStreamLink, the download door writes them), so they hold the
   * workspace file open themselves until read, and a hand-over or an idle reader cuts them
   * (src/exports/held-pieces.ts, docs/operations.md).
   */
  exportCsv: reportProcedure.input(exportInput).query(({ ctx, input }) => {
    const csv = exportCsv(ctx.scope, input);
    // Taken before the call's own hold on the file ends, so there is no moment it could be closed.
    const pieces = heldPieces(ctx.services.registry.holdStream(ctx.handle), csv.pieces);
    return { filename: csv.filename, content_type: 'text/csv; charset=utf-8' as const, pieces };
  }),
});
