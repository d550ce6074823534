import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';
import { makeClient, makeMember, makeProject, makeProjectUser, makeTask, makeTimeEntry } from './helpers/factories.ts';
import { callerFor, startTestEnv, testClock, type TestEnv } from './helpers/env.ts';
import { makeInvoice, makePayment } from './helpers/report-factories.ts';

/**
 * The reports checked against sums worked out here, from the raw rows, with this file's own rules
 * (docs/design.md §5: the rate by billing method, half-up rounding per entry; ISO weeks; "today" in
 * the workspace's time zone), over random agencies: several currencies (JPY without and BHD with
 * three decimals), time zones east and west of UTC, and instants on both sides of midnight.
 */

let env: TestEnv;
const clock = testClock('2026-01-01T00:00:00.000Z');
beforeAll(async () => {
  env = await startTestEnv({ clock });
});
afterAll(() => env.close());

const ZONES = ['Pacific/Kiritimati', 'Asia/Tokyo', 'UTC', 'America/Los_Angeles', 'Pacific/Pago_Pago'];
const CURRENCIES = ['USD', 'EUR', 'JPY', 'BHD'];
const DECIMALS: Record<string, number> = { USD: 2, EUR: 2, JPY: 0, BHD: 3 };
const METHODS = ['hourly_project_rate', 'hourly_person_rate', 'hourly_task_rate', 'fixed_price_project'] as const;
const STATUSES = ['pending_approval', 'unbilled', 'non_billable', 'billed', 'rejected'] as const;
const GROUPINGS = ['client', 'project', 'task', 'person', 'day', 'week', 'month'] as const;
type Status = (typeof STATUSES)[number];
type Grouping = (typeof GROUPINGS)[number];

const DAY = 86_400_000;
const BASE = Date.UTC(2026, 0, 1);
const dayAt = (offset: number) => new Date(BASE + offset * DAY).toISOString().slice(0, 10);

/** Today on the wall clock of `zone` at `instant`. */
const localToday = (instant: Date, zone: string) => new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(instant);

/** ISO 8601 week name: the week holding the year's first Thursday is week 1. */
function isoWeek(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7) + 3); // that week's Thursday
  const year = d.getUTCFullYear();
  const week = Math.floor((d.getTime() - Date.UTC(year, 0, 1)) / DAY / 7) + 1;
  return `${year}-W${String(week).padStart(2, '0')}`;
}

const agencyArb = fc.record({
  zone: fc.constantFrom(...ZONES),
  /** Minutes from midnight UTC, 1 January 2026: either side of midnight in every zone. */
  nowMinutes: fc.integer({ min: -15 * 60, max: 15 * 60 }),
  clients: fc.array(fc.constantFrom(...CURRENCIES), { minLength: 1, maxLength: 3 }),
  projects: fc.array(
    fc.record({ client: fc.nat(), method: fc.constantFrom(...METHODS), rate: fc.integer({ min: 0, max: 99_999 }), otherCurrency: fc.integer({ min: 0, max: 9 }).map((n) => n === 0) }),
    { minLength: 1, maxLength: 4 },
  ),
  tasks: fc.array(fc.record({ project: fc.nat(), billable: fc.boolean(), rate: fc.integer({ min: 0, max: 99_999 }) }), { minLength: 1, maxLength: 6 }),
  people: fc.integer({ min: 1, max: 3 }),
  /** Per (project, person): not a project user (null) or their rate. */
  memberships: fc.array(fc.option(fc.integer({ min: 0, max: 99_999 }), { nil: null }), { minLength: 12, maxLength: 12 }),
  entries: fc.array(
    fc.record({ task: fc.nat(), person: fc.nat(), day: fc.integer({ min: -45, max: 45 }), seconds: fc.integer({ min: 1, max: 86_400 }), status: fc.constantFrom(...STATUSES) }),
    { maxLength: 40 },
  ),
});
type Agency = typeof agencyArb extends fc.Arbitrary<infer A> ? A : never;

const queryArb = fc.record({
  by: fc.uniqueArray(fc.constantFrom(...GROUPINGS), { minLength: 1, maxLength: 2 }),
  range: fc.option(fc.tuple(fc.integer({ min: -50, max: 50 }), fc.integer({ min: 0, max: 60 })), { nil: null }),
  /** The range widened to whole months (a report of whole months reads no day bounds per entry). */
  wholeMonths: fc.boolean(),
  statuses: fc.option(fc.uniqueArray(fc.constantFrom(...STATUSES), { minLength: 1 }), { nil: undefined }),
  billable: fc.option(fc.boolean(), { nil: undefined }),
  clientFilter: fc.option(fc.nat(), { nil: undefined }),
});

interface Built {
  subdomain: string;
  key: string;
  today: string;
  clients: { id: string; currency: string }[];
  projects: { id: string; client: number; method: (typeof METHODS)[number]; rate: number; currency: string }[];
  tasks: { id: string; project: number; billable: boolean; rate: number }[];
  people: { id: string }[];
  rateOf: Map<string, number>;
  entries: { taskIndex: number; person: number; day: string; seconds: number; status: Status }[];
}

let counter = 0;

/** Writes a random agency into a fresh workspace in its time zone, at its instant. */
function build(a: Agency): Built {
  const instant = new Date(BASE + a.nowMinutes * 60_000);
  clock.set(instant.toISOString());
  const subdomain = `prop${++counter}`;
  const ws = provisionWorkspace(env.services.registry, { subdomain, timeZone: a.zone, owner: { email: `owner@${subdomain}.test`, firstName: 'O', lastName: 'W' } }, instant);
  const db = env.services.registry.get(subdomain)!.db;
  const clients = a.clients.map((currency) => ({ id: makeClient(db, { currency }).id, currency }));
  const projects = a.projects.map((p) => {
    const client = p.client % clients.length;
    const own = clients[client]!.currency;
    const currency = p.otherCurrency ? CURRENCIES.find((c) => c !== own)! : own;
    return { id: makeProject(db, clients[client]!.id, { billingMethod: p.method, hourlyRateMinor: p.rate, currency }).id, client, method: p.method, rate: p.rate, currency };
  });
  const tasks = a.tasks.map((t) => {
    const project = t.project % projects.length;
    return { id: makeTask(db, projects[project]!.id, { billable: t.billable, hourlyRateMinor: t.rate }).id, project, billable: t.billable, rate: t.rate };
  });
  const people = Array.from({ length: a.people }, () => ({ id: makeMember(db).id }));
  const rateOf = new Map<string, number>();
  projects.forEach((p, pi) =>
    people.forEach((u, ui) => {
      const rate = a.memberships[(pi * 3 + ui) % a.memberships.length];
      if (rate === null || rate === undefined) return;
      makeProjectUser(db, p.id, u.id, { hourlyRateMinor: rate });
      rateOf.set(`${p.id}|${u.id}`, rate);
    }),
  );
  const entries = a.entries.map((e) => {
    const taskIndex = e.task % tasks.length;
    const task = tasks[taskIndex]!;
    const project = projects[task.project]!;
    const person = e.person % people.length;
    const day = dayAt(e.day);
    makeTimeEntry(db, { clientId: clients[project.client]!.id, projectId: project.id, taskId: task.id, userId: people[person]!.id }, { recordedOn: day, seconds: e.seconds, enteredSeconds: e.seconds, status: e.status });
    return { taskIndex, person, day, seconds: e.seconds, status: e.status };
  });
  return { subdomain, key: ws.apiKey, today: localToday(instant, a.zone), clients, projects, tasks, people, rateOf, entries };
}

/** Everything this file knows about one entry, by its own rules. */
function facts(b: Built, e: Built['entries'][number]) {
  const task = b.tasks[e.taskIndex]!;
  const project = b.projects[task.project]!;
  const client = b.clients[project.client]!;
  const person = b.people[e.person]!;
  const personRate = b.rateOf.get(`${project.id}|${person.id}`);
  let rate = { hourly_project_rate: project.rate, hourly_person_rate: personRate ?? 0, hourly_task_rate: task.rate, fixed_price_project: 0 }[project.method];
  // No rate to use: in another currency than the client's, or a person rate of someone not on the project.
  const unpriced = (rate !== 0 && project.currency !== client.currency) || (project.method === 'hourly_person_rate' && personRate === undefined);
  if (unpriced) rate = 0;
  const billable = e.status === 'billed' || ((e.status === 'unbilled' || e.status === 'pending_approval') && task.billable);
  const invoiceable = e.status === 'unbilled' && task.billable;
  const amount = Number((BigInt(e.seconds) * BigInt(rate) * 2n + 3600n) / 7200n);
  return { task, project, client, person, billable, invoiceable, amount, unpriced, currency: client.currency };
}

const money = (minor: number, currency: string) => minor / 10 ** DECIMALS[currency]!;
const hours = (seconds: number) => Math.round((seconds / 3600) * 10000) / 10000;

interface Sums {
  entries: number;
  seconds: number;
  billable: number;
  unbilled: number;
  money: Map<string, { billable: number; unbilled: number }>;
}

function keyOf(b: Built, e: Built['entries'][number], by: Grouping): string {
  const f = facts(b, e);
  switch (by) {
    case 'client':
      return f.client.id;
    case 'project':
      return f.project.id;
    case 'task':
      return f.task.id;
    case 'person':
      return f.person.id;
    case 'day':
      return e.day;
    case 'week':
      return isoWeek(e.day);
    case 'month':
      return e.day.slice(0, 7);
  }
}

describe('reports against sums worked out from the raw entries', () => {
  it('reports.time: every grouping, filter, currency and time zone', async () => {
    await fc.assert(
      fc.asyncProperty(agencyArb, queryArb, async (agency, q) => {
        const b = build(agency);
        const input: Record<string, unknown> = { by: q.by };
        if (q.range) {
          input.from = dayAt(q.range[0]);
          input.to = dayAt(q.range[0] + q.range[1]);
          if (q.wholeMonths) {
            input.from = `${(input.from as string).slice(0, 7)}-01`;
            const end = new Date(`${(input.to as string).slice(0, 7)}-01T00:00:00Z`);
            end.setUTCMonth(end.getUTCMonth() + 1, 0);
            input.to = end.toISOString().slice(0, 10);
          }
        }
        if (q.statuses) input.status = q.statuses;
        if (q.billable !== undefined) input.billable = q.billable;
        const client = q.clientFilter === undefined ? undefined : b.clients[q.clientFilter % b.clients.length]!;
        if (client) input.client_ids = [client.id];
        const report = await callerFor(env.services, b.subdomain, b.key).reports.time(input as never);

        const to = (input.to as string | undefined) ?? b.today;
        const from = (input.from as string | undefined) ?? `${to.slice(0, 7)}-01`;
        expect([report.from, report.to]).toEqual([from, to]);
        const statuses: readonly Status[] = q.statuses ?? STATUSES.filter((s) => s !== 'rejected');
        const expected = new Map<string, Sums>();
        let unpriced = 0;
        for (const e of b.entries) {
          const f = facts(b, e);
          if (e.day < from || e.day > to || !statuses.includes(e.status)) continue;
          if (client && f.client.id !== client.id) continue;
          if (q.billable !== undefined && f.billable !== q.billable) continue;
          const key = q.by.map((g) => keyOf(b, e, g)).join('|');
          const s = expected.get(key) ?? { entries: 0, seconds: 0, billable: 0, unbilled: 0, money: new Map() };
          s.entries += 1;
          s.seconds += e.seconds;
          if (f.billable) s.billable += e.seconds;
          if (f.invoiceable) s.unbilled += e.seconds;
          const m = s.money.get(f.currency) ?? { billable: 0, unbilled: 0 };
          if (f.billable) m.billable += f.amount;
          if (f.invoiceable) m.unbilled += f.amount;
          s.money.set(f.currency, m);
          expected.set(key, s);
          if (f.billable && f.unpriced) unpriced += 1;
        }
        const actual = new Map(report.rows.map((r) => [r.keys.map((k) => k.id).join('|'), r]));
        expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
        for (const [key, s] of expected) {
          const row = actual.get(key)!;
          expect(row).toMatchObject({ entries: s.entries, seconds: s.seconds, hours: hours(s.seconds), billable_seconds: s.billable, unbilled_seconds: s.unbilled });
          expect(row.amounts).toEqual(
            [...s.money.entries()].sort(([x], [y]) => (x < y ? -1 : 1)).map(([currency, m]) => ({ currency, billable_amount: money(m.billable, currency), unbilled_amount: money(m.unbilled, currency) })),
          );
        }
        expect(report.unpriced_entries).toBe(unpriced);
        expect(report.totals.seconds).toBe([...expected.values()].reduce((t, s) => t + s.seconds, 0));
      }),
      { numRuns: 40 },
    );
  });

  it('reports.unbilled and reports.utilisation', async () => {
    await fc.assert(
      fc.asyncProperty(agencyArb, async (agency) => {
        const b = build(agency);
        const caller = callerFor(env.services, b.subdomain, b.key);
        const unbilled = await caller.reports.unbilled({});
        const expected = new Map<string, { entries: number; seconds: number; amount: number; currency: string; oldest: string }>();
        for (const e of b.entries) {
          const f = facts(b, e);
          if (!f.invoiceable || e.day > b.today) continue;
          const key = `${f.client.id}|${f.project.id}`;
          const s = expected.get(key) ?? { entries: 0, seconds: 0, amount: 0, currency: f.currency, oldest: e.day };
          s.entries += 1;
          s.seconds += e.seconds;
          s.amount += f.amount;
          if (e.day < s.oldest) s.oldest = e.day;
          expected.set(key, s);
        }
        expect(unbilled.to).toBe(b.today);
        expect(new Map(unbilled.rows.map((r) => [`${r.client.id}|${r.project.id}`, { entries: r.entries, seconds: r.seconds, amount: r.amount, currency: r.currency, oldest: r.oldest_recorded_on }]))).toEqual(
          new Map([...expected].map(([k, s]) => [k, { ...s, amount: money(s.amount, s.currency) }])),
        );

        const from = dayAt(-45);
        const to = dayAt(45);
        const util = await caller.reports.utilisation({ from, to });
        const weeks = new Map<string, { seconds: number; billable: number }>();
        for (const e of b.entries) {
          if (e.status === 'rejected') continue;
          const key = `${b.people[e.person]!.id}|${isoWeek(e.day)}`;
          const w = weeks.get(key) ?? { seconds: 0, billable: 0 };
          w.seconds += e.seconds;
          if (facts(b, e).billable) w.billable += e.seconds;
          weeks.set(key, w);
        }
        expect(new Map(util.rows.map((r) => [`${r.person.id}|${r.week}`, { seconds: r.seconds, share: r.billable_share }]))).toEqual(
          new Map([...weeks].map(([k, w]) => [k, { seconds: w.seconds, share: Math.round((w.billable / w.seconds) * 10000) / 10000 }])),
        );
      }),
      { numRuns: 25 },
    );
  });

  it('reports.receivables: balances, overdue and ageing by the workspace calendar around midnight', async () => {
    const invoiceArb = fc.record({
      client: fc.nat(),
      dueIn: fc.integer({ min: -120, max: 3 }),
      total: fc.integer({ min: 1, max: 10_000_000 }),
      paid: fc.array(fc.integer({ min: 1, max: 5_000_000 }), { maxLength: 3 }),
      status: fc.constantFrom('draft', 'sending', 'sent', 'partially_paid', 'paid', 'void'),
      creditNote: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(agencyArb, fc.array(invoiceArb, { maxLength: 12 }), async (agency, invoices) => {
        const b = build({ ...agency, entries: [] });
        const db = env.services.registry.get(b.subdomain)!.db;
        const owner = makeMember(db, { organizationRole: 'Owner' });
        const made = invoices.map((i) => {
          const client = b.clients[i.client % b.clients.length]!;
          // Due dates are counted from the UTC day, so "today" in the zone may be one off them.
          const row = makeInvoice(db, client.id, owner.id, { currency: client.currency, totalMinor: i.total, dueDate: dayAt(i.dueIn), status: i.status, kind: i.creditNote ? 'credit_note' : 'invoice' });
          i.paid.forEach((amount) => makePayment(db, row.id, { amountMinor: amount }));
          return { row, paid: i.paid.reduce((t, x) => t + x, 0), client };
        });
        const r = await callerFor(env.services, b.subdomain, b.key).reports.receivables({});
        expect(r.as_of).toBe(b.today);
        const owing = made
          .map((m) => ({ ...m, balance: m.row.totalMinor - m.paid }))
          .filter((m) => m.row.kind === 'invoice' && ['sending', 'sent', 'partially_paid'].includes(m.row.status) && m.balance > 0);
        const days = (due: string) => Math.max(0, Math.round((Date.parse(b.today) - Date.parse(due)) / DAY));
        const bucket = (d: number) => (d === 0 ? 'not_due' : d <= 30 ? 'days_1_30' : d <= 60 ? 'days_31_60' : d <= 90 ? 'days_61_90' : 'over_90');
        expect(new Map(r.invoices.map((i) => [i.id, [i.balance, i.days_overdue, i.bucket]]))).toEqual(
          new Map(owing.map((m) => [m.row.id, [money(m.balance, m.client.currency), days(m.row.dueDate), bucket(days(m.row.dueDate))]])),
        );
        for (const total of r.totals) {
          const mine = owing.filter((m) => m.client.currency === total.currency);
          expect(total.balance).toBe(money(mine.reduce((t, m) => t + m.balance, 0), total.currency));
          expect(total.overdue).toBe(money(mine.filter((m) => m.row.dueDate < b.today).reduce((t, m) => t + m.balance, 0), total.currency));
        }
        expect(r.totals.map((t) => t.currency)).toEqual([...new Set(owing.map((m) => m.client.currency))].sort());
      }),
      { numRuns: 25 },
    );
  });
});
