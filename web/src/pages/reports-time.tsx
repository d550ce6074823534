import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { useLocation, useSearch } from 'wouter';
import { api, apiError, type Outputs } from '../api.ts';
import { addDays, mondayOf, todayIn } from '../dates.ts';
import { formatDate, formatHours, formatMonth, formatNumber } from '../format.ts';
import { useMe } from '../session.tsx';
import { FormError, formErrors } from '../ui/field.tsx';
import { SelectField, TextField } from '../ui/form.tsx';
import { Loading, Page } from '../ui/page.tsx';
import { Table, type Column } from '../ui/table.tsx';
import { Amounts, CsvLink, MultiPick, ReportSection, ReportTabs, TotalsPanel } from '../reports/report-ui.tsx';
import type { WeekHours } from '../reports/hours-chart.tsx';
import { csvHref, GROUPINGS, PERIODS, readTimeQuery, STATUSES, timeInput, timeSearch, type Grouping, type TimeQuery } from '../reports/time-query.ts';

/** The chart library comes with the chart, after the figures: the table never waits for it. */
const HoursChart = lazy(() => import('../reports/hours-chart.tsx'));

type Report = Outputs['reports']['time'];
type Row = Report['rows'][number];
type Key = Row['keys'][number];
type Options = Outputs['reports']['filterOptions'];

const groupingName = (g: Grouping) => GROUPINGS.find(([v]) => v === g)?.[1] ?? g;

/** A row's key as a person reads it: names for clients, projects, tasks and people; periods as dates. */
function keyLabel(key: Key): string {
  if (key.by === 'day') return formatDate(key.id);
  if (key.by === 'week' && key.starts_on) return `Week of ${formatDate(key.starts_on)}`;
  if (key.by === 'month' && key.starts_on) return formatMonth(key.starts_on);
  return key.label;
}

const billable = (amounts: Row['amounts']) => amounts.map((a) => ({ currency: a.currency, amount: a.billable_amount }));
const unbilled = (amounts: Row['amounts']) => amounts.map((a) => ({ currency: a.currency, amount: a.unbilled_amount }));

/** Every week of the range, Monday first, with its hours (none recorded: zero), for the chart. */
function weeksOf(report: Report): WeekHours[] {
  const byStart = new Map(report.rows.map((r) => [r.keys[0]?.starts_on ?? '', r]));
  const weeks: WeekHours[] = [];
  for (let monday = mondayOf(report.from); monday <= report.to; monday = addDays(monday, 7)) {
    const row = byStart.get(monday);
    weeks.push({ starts_on: monday, hours: row?.hours ?? 0, billable_hours: row?.billable_hours ?? 0 });
  }
  return weeks;
}

function chartLabel(weeks: WeekHours[], report: Report): string {
  const busiest = weeks.reduce<WeekHours | null>((top, w) => (top === null || w.hours > top.hours ? w : top), null);
  const most = busiest && busiest.hours > 0 ? `; most in the week of ${formatDate(busiest.starts_on)} (${formatHours(busiest.hours)} h)` : '';
  return `Bar chart of hours per week, ${formatDate(report.from)} to ${formatDate(report.to)}: ${formatHours(report.totals.hours)} h in ${weeks.length} weeks${most}. The table below the chart lists every week.`;
}

function WeeklyChart({ report }: { report: Report }) {
  const weeks = weeksOf(report);
  return (
    <ReportSection id="weekly-title" title="Hours per week">
      <Suspense fallback={<p className="muted chart-placeholder">Loading the chart…</p>}>
        <HoursChart weeks={weeks} label={chartLabel(weeks, report)} />
      </Suspense>
      <details className="chart-table">
        <summary>Show the hours per week as a table</summary>
        <Table
          caption="Hours per week"
          captionHidden
          rows={weeks}
          rowKey={(w) => w.starts_on}
          empty="No weeks."
          columns={[
            { header: 'Week of', cell: (w) => formatDate(w.starts_on) },
            { header: 'Hours', align: 'end', cell: (w) => formatHours(w.hours) },
            { header: 'Billable hours', align: 'end', cell: (w) => formatHours(w.billable_hours) },
          ]}
        />
      </details>
    </ReportSection>
  );
}

function Totals({ report }: { report: Report }) {
  const t = report.totals;
  return (
    <TotalsPanel
      facts={[
        ['Hours', formatHours(t.hours)],
        [
          'Billable hours',
          <>
            {formatHours(t.billable_hours)}
            {t.hours > 0 && <span className="muted"> ({formatNumber((100 * t.billable_seconds) / t.seconds, 0)} %)</span>}
          </>,
        ],
        ['Billable amount', <Amounts amounts={billable(t.amounts)} />],
        ['Not yet invoiced', <Amounts amounts={unbilled(t.amounts)} />],
        ['Entries', formatNumber(t.entries, 0)],
      ]}
    />
  );
}

function ReportTable({ report }: { report: Report }) {
  const keys: Column<Row>[] = report.by.map((g, n) => ({ header: groupingName(g), cell: (r) => (r.keys[n] ? keyLabel(r.keys[n]) : '') }));
  const t = report.totals;
  return (
    <Table
      caption={`Time ${formatDate(report.from)} – ${formatDate(report.to)} by ${report.by.map((g) => groupingName(g).toLowerCase()).join(' and ')}`}
      rows={report.rows}
      rowKey={(r) => r.keys.map((k) => k.id).join('|')}
      empty="No time recorded in this period with these filters."
      columns={[
        ...keys,
        { header: 'Hours', align: 'end', cell: (r) => formatHours(r.hours) },
        { header: 'Billable hours', align: 'end', cell: (r) => formatHours(r.billable_hours) },
        { header: 'Billable amount', align: 'end', cell: (r) => <Amounts amounts={billable(r.amounts)} /> },
        { header: 'Not yet invoiced', align: 'end', cell: (r) => <Amounts amounts={unbilled(r.amounts)} /> },
      ]}
      footer={
        <tr className="total report-total">
          <th scope="row" colSpan={report.by.length}>
            Total
          </th>
          <td className="num" data-label="Hours">
            {formatHours(t.hours)}
          </td>
          <td className="num" data-label="Billable hours">
            {formatHours(t.billable_hours)}
          </td>
          <td className="num" data-label="Billable amount">
            <Amounts amounts={billable(t.amounts)} />
          </td>
          <td className="num" data-label="Not yet invoiced">
            <Amounts amounts={unbilled(t.amounts)} />
          </td>
        </tr>
      }
    />
  );
}

const FIELDS = ['from', 'to', 'by', 'client_ids', 'project_ids', 'user_ids', 'billable', 'status'];

function Filters({ q, set, options, error }: { q: TimeQuery; set: (change: Partial<TimeQuery>) => void; options: Options | undefined; error: ReturnType<typeof formErrors> }) {
  const projects = (options?.projects ?? []).filter((p) => q.client_ids.length === 0 || q.client_ids.includes(p.client_id));
  const clientName = (id: string) => options?.clients.find((c) => c.id === id)?.name ?? '';
  // A Member may look at other people's time only on the projects they manage.
  const mayPickPeople = options !== undefined && (options.managed_project_ids === null || options.managed_project_ids.length > 0);
  return (
    <form className="panel filters" aria-label="Report settings" onSubmit={(e) => e.preventDefault()}>
      <SelectField label="Period" value={q.period} options={PERIODS} onChange={(period) => set({ period })} />
      <TextField label="From" type="date" value={q.from} error={error.field('from')} onChange={(from) => from && set({ period: 'custom', from })} />
      <TextField label="To" type="date" value={q.to} error={error.field('to')} onChange={(to) => to && set({ period: 'custom', to })} />
      <SelectField label="Group by" value={q.by[0]!} options={GROUPINGS} error={error.field('by')} onChange={(g) => set({ by: [g, ...q.by.slice(1).filter((x) => x !== g)] })} />
      <SelectField
        label="Then by"
        value={q.by[1] ?? ''}
        options={[['', 'Nothing'], ...GROUPINGS.filter(([g]) => g !== q.by[0])]}
        onChange={(g) => set({ by: g ? [q.by[0]!, g] : [q.by[0]!] })}
      />
      <MultiPick label="Clients" none="All clients" options={options?.clients ?? []} picked={q.client_ids} onChange={(client_ids) => set({ client_ids })} />
      <MultiPick label="Projects" none="All projects" options={projects.map((p) => ({ id: p.id, name: p.name, note: clientName(p.client_id) }))} picked={q.project_ids} onChange={(project_ids) => set({ project_ids })} />
      {mayPickPeople && <MultiPick label="People" none="Everyone" options={options.people} picked={q.user_ids} onChange={(user_ids) => set({ user_ids })} />}
      <SelectField
        label="Billable"
        value={q.billable}
        options={[
          ['', 'Billable and not'],
          ['true', 'Billable only'],
          ['false', 'Non-billable only'],
        ]}
        onChange={(value) => set({ billable: value })}
      />
      <MultiPick label="Statuses" none="All but rejected" options={STATUSES.map(([id, name]) => ({ id, name }))} picked={q.status} onChange={(status) => set({ status: status as TimeQuery['status'] })} />
      <FormError message={error.form} />
    </form>
  );
}

/**
 * The time report: a period, one or two groupings and filters (kept in the address), the totals,
 * hours per week as a chart, and the rows. Its data: `reports.time` for the rows, `reports.time` by
 * week for the chart (the same call when the report is by week alone), and the filter lists
 * (`reports.filterOptions`, loaded once).
 */
export function TimeReportPage() {
  const me = useMe();
  const [, navigate] = useLocation();
  const q = readTimeQuery(useSearch(), todayIn(me.workspace.time_zone));
  const set = (change: Partial<TimeQuery>) => navigate(`/reports?${timeSearch({ ...q, ...change })}`, { replace: true });
  const input = timeInput(q);
  const weeklyInput = timeInput(q, ['week']);
  const report = useQuery({ queryKey: ['reports.time', input], queryFn: () => api.reports.time.query(input), placeholderData: keepPreviousData, retry: false });
  const weekly = useQuery({ queryKey: ['reports.time', weeklyInput], queryFn: () => api.reports.time.query(weeklyInput), placeholderData: keepPreviousData, retry: false });
  const options = useQuery({ queryKey: ['reports.filterOptions'], queryFn: () => api.reports.filterOptions.query({}), staleTime: 5 * 60_000 });
  const error = formErrors(report.error ? apiError(report.error) : null, FIELDS);
  const { by: _by, ...entryFilters } = input;
  return (
    <Page
      title="Time report"
      actions={
        <>
          <CsvLink href={csvHref('time', input)}>Download CSV</CsvLink>
          <CsvLink href={csvHref('time-entries', entryFilters)}>Entries as CSV</CsvLink>
        </>
      }
    >
      <ReportTabs />
      <Filters q={q} set={set} options={options.data} error={error} />
      {report.data ? (
        <div className="stack" aria-busy={report.isFetching || weekly.isFetching}>
          {report.data.unpriced_entries > 0 && (
            <p className="panel muted">
              {report.data.unpriced_entries} billable {report.data.unpriced_entries === 1 ? 'entry has' : 'entries have'} no amount: the project bills in another currency than its client and has no hourly rate of its own.
            </p>
          )}
          <Totals report={report.data} />
          {weekly.data && <WeeklyChart report={weekly.data} />}
          <ReportTable report={report.data} />
        </div>
      ) : (
        !report.error && <Loading error={null} what="the report" />
      )}
    </Page>
  );
}
