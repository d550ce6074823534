import { fromMinor } from '../money.ts';
import type { Scope } from '../scope.ts';
import { hoursOf } from '../time/hours.ts';
import { amountOf, PerCurrency } from './amounts.ts';
import { entryTotals } from './entry-totals.ts';
import { clientNames, compareText, nameOf, projectNames } from './labels.ts';
import { todayOf } from './range.ts';
import type { UnbilledInput, UnbilledOutput } from './schemas.ts';
import { entryScope } from './visibility.ts';

/** A row's first or last day, which this report always asks for (`days: true`). */
function dayOf(day: string | null): string {
  if (day === null) throw new Error('the unbilled totals were read without their days');
  return day;
}

/**
 * tRPC `reports.unbilled`: what could be invoiced now, per client and project: the `unbilled`
 * entries of billable tasks recorded up to `to` (default today), their hours, their amount at
 * the rates an invoice would use and the oldest entry's day. `reports.invoiceDraft` turns one
 * client's line into the request that invoices it.
 */
export function unbilledReport(scope: Scope, input: UnbilledInput): UnbilledOutput {
  const to = input.to ?? todayOf(scope);
  const rows = entryTotals(scope, {
    source: 'unbilled',
    from: null,
    to,
    statuses: null,
    billable: true,
    entries: entryScope(scope, input),
    group: ['client', 'project'],
    days: true,
  });
  const clients = clientNames(scope.db, [...new Set(rows.map((r) => r.keys[0] ?? ''))]);
  const projects = projectNames(scope.db, [...new Set(rows.map((r) => r.keys[1] ?? ''))]);
  const totals = new PerCurrency(() => ({ entries: 0, seconds: 0, minor: 0n }));
  let unpriced = 0;
  const out = rows.map((r) => {
    const [clientId = '', projectId = ''] = r.keys;
    const t = totals.of(r.currency);
    t.entries += r.entries;
    t.seconds += r.unbilledSeconds;
    t.minor += BigInt(r.unbilledMinor);
    unpriced += r.unpriced;
    return {
      client: { id: clientId, name: nameOf(clients, clientId) },
      project: { id: projectId, name: nameOf(projects, projectId), identifier: projects.get(projectId)?.identifier ?? '' },
      currency: r.currency,
      entries: r.entries,
      seconds: r.unbilledSeconds,
      hours: hoursOf(r.unbilledSeconds),
      amount: fromMinor(r.unbilledMinor, r.currency),
      oldest_recorded_on: dayOf(r.firstOn),
      newest_recorded_on: dayOf(r.lastOn),
    };
  });
  out.sort((a, b) => a.client.name.localeCompare(b.client.name) || compareText(a.client.id, b.client.id) || a.project.name.localeCompare(b.project.name) || compareText(a.project.id, b.project.id));
  return {
    to,
    rows: out,
    totals: totals.entries().map(([currency, t]) => ({ currency, entries: t.entries, seconds: t.seconds, hours: hoursOf(t.seconds), amount: amountOf(t.minor, currency) })),
    unpriced_entries: unpriced,
  };
}
