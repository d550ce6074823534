import type { Scope } from '../scope.ts';
import { addDays, mondayOf } from '../time/calendar.ts';
import { hoursOf } from '../time/hours.ts';
import { entryTotals } from './entry-totals.ts';
import { compareText, peopleNames } from './labels.ts';
import { isoWeekStart } from './periods.ts';
import { resolveRange } from './range.ts';
import type { UtilisationInput, UtilisationOutput } from './schemas.ts';
import { DEFAULT_STATUSES } from './time-report.ts';
import { entryScope } from './visibility.ts';

/** Twelve weeks up to the week of `to`. */
const WEEKS_BACK = 11;

function figures(seconds: number, billableSeconds: number) {
  return {
    seconds,
    hours: hoursOf(seconds),
    billable_seconds: billableSeconds,
    billable_hours: hoursOf(billableSeconds),
    billable_share: seconds === 0 ? 0 : Math.round((billableSeconds / seconds) * 10_000) / 10_000,
  };
}

/**
 * tRPC `reports.utilisation`: per person and ISO week (Monday to Sunday), the hours recorded and
 * the share of them that is billable; and the same per person over the whole range. By default
 * the twelve weeks up to this one. A Member sees their own weeks, and on the projects they manage
 * everyone's time there (docs/reports.md).
 */
export function utilisationReport(scope: Scope, input: UtilisationInput): UtilisationOutput {
  const range = resolveRange(scope, input, (to) => addDays(mondayOf(to), -7 * WEEKS_BACK));
  const rows = entryTotals(scope, {
    source: 'all',
    from: range.from,
    to: range.to,
    statuses: DEFAULT_STATUSES,
    billable: null,
    entries: entryScope(scope, input),
    group: ['person', 'week'],
  });
  const people = peopleNames(scope.db, [...new Set(rows.map((r) => r.keys[0] ?? ''))]);
  const personOf = (id: string) => {
    const p = people.get(id);
    return { id, name: p?.name ?? id, email: p?.email ?? '' };
  };
  // A person's week may come in one row per currency: add them up (hours have no currency).
  const weeks = new Map<string, { person: string; week: string; seconds: number; billable: number }>();
  const perPerson = new Map<string, { seconds: number; billable: number }>();
  for (const r of rows) {
    const [person = '', week = ''] = r.keys;
    const w = weeks.get(`${person}|${week}`) ?? { person, week, seconds: 0, billable: 0 };
    w.seconds += r.seconds;
    w.billable += r.billableSeconds;
    weeks.set(`${person}|${week}`, w);
    const p = perPerson.get(person) ?? { seconds: 0, billable: 0 };
    p.seconds += r.seconds;
    p.billable += r.billableSeconds;
    perPerson.set(person, p);
  }
  const byName = (a: { person: { name: string; id: string } }, b: { person: { name: string; id: string } }) =>
    a.person.name.localeCompare(b.person.name) || compareText(a.person.id, b.person.id);
  return {
    ...range,
    rows: [...weeks.values()]
      .map((w) => ({ person: personOf(w.person), week: w.week, week_starts_on: isoWeekStart(w.week), ...figures(w.seconds, w.billable) }))
      .sort((a, b) => byName(a, b) || compareText(a.week, b.week)),
    people: [...perPerson.entries()].map(([id, p]) => ({ person: personOf(id), ...figures(p.seconds, p.billable) })).sort(byName),
  };
}
