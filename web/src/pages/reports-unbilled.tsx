import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api, type Outputs } from '../api.ts';
import { formatDate, formatHours, formatMoney, formatNumber } from '../format.ts';
import { Amounts, CsvLink, ReportTabs, TotalsPanel } from '../reports/report-ui.tsx';
import { csvHref, searchOf } from '../reports/time-query.ts';
import { Loading, Page } from '../ui/page.tsx';
import { Table } from '../ui/table.tsx';

type Unbilled = Outputs['reports']['unbilled'];
type Row = Unbilled['rows'][number];

interface ClientWork {
  id: string;
  name: string;
  rows: Row[];
}

/** The report's rows (already in client, then project order) under their clients. */
function byClient(rows: Row[]): ClientWork[] {
  const clients = new Map<string, ClientWork>();
  for (const row of rows) {
    const client = clients.get(row.client.id) ?? { id: row.client.id, name: row.client.name, rows: [] };
    client.rows.push(row);
    clients.set(row.client.id, client);
  }
  return [...clients.values()];
}

/**
 * Where "Start an invoice" leads: the new-invoice page, which asks `reports.invoiceDraft` for
 * exactly the entries this report counted (the client's, or one project's, up to the same day) and
 * preselects them.
 */
export const draftHref = (clientId: string, to: string, projectId?: string) => `/invoicing/new?${searchOf({ client: clientId, draft: 1, to, project: projectId })}`;

const entries = (n: number) => `${formatNumber(n, 0)} ${n === 1 ? 'entry' : 'entries'}`;

function ClientSection({ client, to }: { client: ClientWork; to: string }) {
  const count = client.rows.reduce((sum, r) => sum + r.entries, 0);
  const seconds = client.rows.reduce((sum, r) => sum + r.seconds, 0);
  const oldest = client.rows.reduce((min, r) => (r.oldest_recorded_on < min ? r.oldest_recorded_on : min), client.rows[0]!.oldest_recorded_on);
  const headingId = `client-${client.id}`;
  return (
    <section className="panel unbilled-client" aria-labelledby={headingId}>
      <div className="group-head">
        <h2 id={headingId}>{client.name}</h2>
        <span className="muted">
          {entries(count)} · {formatHours(seconds / 3600)} h · since {formatDate(oldest)}
        </span>
        <Link className="button primary push" href={draftHref(client.id, to)}>
          Start an invoice<span className="visually-hidden"> for all of {client.name}’s unbilled work</span>
        </Link>
      </div>
      <Table
        caption={`Unbilled work for ${client.name} by project`}
        captionHidden
        rows={client.rows}
        rowKey={(r) => r.project.id}
        empty="Nothing to invoice."
        columns={[
          { header: 'Project', cell: (r) => r.project.name },
          { header: 'Entries', align: 'end', cell: (r) => formatNumber(r.entries, 0) },
          { header: 'Hours', align: 'end', cell: (r) => formatHours(r.hours) },
          { header: 'Amount', align: 'end', cell: (r) => formatMoney(r.amount, r.currency) },
          { header: 'Oldest entry', cell: (r) => formatDate(r.oldest_recorded_on) },
          {
            header: <span className="visually-hidden">Invoice</span>,
            label: ' ',
            cell: (r) =>
              client.rows.length > 1 ? (
                <Link href={draftHref(client.id, to, r.project.id)}>
                  Invoice this project<span className="visually-hidden"> ({r.project.name})</span>
                </Link>
              ) : null,
          },
        ]}
      />
    </section>
  );
}

/** What can be invoiced now, per client and project, each a click away from its invoice. One call: `reports.unbilled`. */
export function UnbilledPage() {
  const report = useQuery({ queryKey: ['reports.unbilled', {}], queryFn: () => api.reports.unbilled.query({}) });
  const data = report.data;
  return (
    <Page title="Unbilled work" actions={<CsvLink href={csvHref('unbilled', data ? { to: data.to } : {})}>Download CSV</CsvLink>}>
      <ReportTabs />
      {data ? (
        <>
          <p className="muted">Approved time of billable tasks recorded up to {formatDate(data.to)} and not yet on an invoice, at the rates an invoice would use today.</p>
          {data.rows.length > 0 && (
            <TotalsPanel
              facts={[
                ['To invoice', <Amounts amounts={data.totals} />],
                ['Hours', formatHours(data.totals.reduce((sum, t) => sum + t.seconds, 0) / 3600)],
                ['Entries', formatNumber(data.totals.reduce((sum, t) => sum + t.entries, 0), 0)],
              ]}
            />
          )}
          {data.unpriced_entries > 0 && (
            <p className="panel muted">
              {entries(data.unpriced_entries)} of projects billed in another currency than their client have no hourly rate of their own and are left out of the amounts.
            </p>
          )}
          {data.rows.length === 0 ? <p className="panel">Nothing is waiting to be invoiced.</p> : byClient(data.rows).map((c) => <ClientSection key={c.id} client={c} to={data.to} />)}
        </>
      ) : (
        <Loading error={report.error} what="the unbilled work" />
      )}
    </Page>
  );
}
