import type { Scope } from '../scope.ts';
import { csvTable } from './csv.ts';
import { invoicesExport, paymentsExport } from './money-exports.ts';
import { paidPerMonth } from './paid-per-month.ts';
import { receivablesReport } from './receivables.ts';
import { paidPerMonthColumns, receivablesColumns, timeReportColumns, unbilledColumns, utilisationColumns } from './report-tables.ts';
import type { ExportInput, ExportName } from './schemas.ts';
import { timeEntriesExport } from './time-entries-export.ts';
import { timeReport } from './time-report.ts';
import { unbilledReport } from './unbilled.ts';
import { utilisationReport } from './utilisation.ts';

/** A CSV download: its file name and its text in pieces, taken one after another as the client reads. */
export interface CsvExport {
  filename: string;
  pieces: Generator<string>;
}

const fileName = (scope: Scope, report: ExportName, ...days: string[]) => `hourbook-${scope.workspace.subdomain}-${report}-${days.join('_')}.csv`;

/**
 * tRPC `reports.exportCsv` and the CSV downloads: any report, or the time entries, invoices with
 * their lines, or payments, as CSV (csv.ts). Everything that can refuse the export (the role, the
 * range, a Member asking for someone else's time) is checked before this returns, so a refused
 * download fails with its error before its first byte; the rows are read as the pieces are taken.
 */
export function exportCsv(scope: Scope, input: ExportInput): CsvExport {
  const bom = input.bom ?? false;
  switch (input.report) {
    case 'time': {
      const report = timeReport(scope, input);
      return { filename: fileName(scope, 'time', report.from, report.to), pieces: csvTable(timeReportColumns(report), report.rows, bom) };
    }
    case 'unbilled': {
      const report = unbilledReport(scope, input);
      return { filename: fileName(scope, 'unbilled', report.to), pieces: csvTable(unbilledColumns, report.rows, bom) };
    }
    case 'receivables': {
      const report = receivablesReport(scope, input);
      return { filename: fileName(scope, 'receivables', report.as_of), pieces: csvTable(receivablesColumns, report.invoices, bom) };
    }
    case 'paid-per-month': {
      const report = paidPerMonth(scope, input);
      return { filename: fileName(scope, 'paid-per-month', report.from, report.to), pieces: csvTable(paidPerMonthColumns, report.rows, bom) };
    }
    case 'utilisation': {
      const report = utilisationReport(scope, input);
      return { filename: fileName(scope, 'utilisation', report.from, report.to), pieces: csvTable(utilisationColumns, report.rows, bom) };
    }
    case 'time-entries': {
      const { range, pieces } = timeEntriesExport(scope, input, bom);
      return { filename: fileName(scope, 'time-entries', range.from, range.to), pieces };
    }
    case 'invoices': {
      const { range, pieces } = invoicesExport(scope, input, bom);
      return { filename: fileName(scope, 'invoices', range.from, range.to), pieces };
    }
    case 'payments': {
      const { range, pieces } = paymentsExport(scope, input, bom);
      return { filename: fileName(scope, 'payments', range.from, range.to), pieces };
    }
  }
}
