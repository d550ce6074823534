import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';
import { WorkspaceRegistry } from '../src/workspaces/registry.ts';
import { makeClient, makeMember, makeProject, makeProjectUser, makeTask, makeTimeEntry } from './helpers/factories.ts';
import { cliOver } from './helpers/cli.ts';
import { makeInvoice } from './helpers/report-factories.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'hourbook-report-cli-'));
const hourbook = cliOver(dataDir);

let ids: { project: string; ann: string };

beforeAll(() => {
  const registry = new WorkspaceRegistry({ dataDir, synchronous: 'NORMAL' });
  const ws = provisionWorkspace(registry, { subdomain: 'acme', timeZone: 'UTC', owner: { email: 'owner@acme.test', firstName: 'O', lastName: 'W' } }, new Date());
  const db = registry.get('acme')!.db;
  const client = makeClient(db, { name: 'Globex', currency: 'EUR' });
  const project = makeProject(db, client.id, { name: 'Portal', identifier: 'GLO-0001', currency: 'EUR', hourlyRateMinor: 10000 });
  const task = makeTask(db, project.id);
  const ann = makeMember(db, { firstName: 'Ann', lastName: 'A' });
  const bob = makeMember(db, { firstName: 'Bob', lastName: 'B' });
  for (const m of [ann, bob]) makeProjectUser(db, project.id, m.id);
  const refs = (userId: string) => ({ clientId: client.id, projectId: project.id, taskId: task.id, userId });
  makeTimeEntry(db, refs(ann.id), { recordedOn: '2026-03-02', seconds: 5400, notes: '=cmd|calc' });
  makeTimeEntry(db, refs(bob.id), { recordedOn: '2026-03-03', seconds: 3600, status: 'billed' });
  makeInvoice(db, client.id, ws.owner.id, { currency: 'EUR', totalMinor: 50000, dueDate: '2026-01-01', number: 'INV-0007' });
  ids = { project: project.id, ann: ann.id };
  registry.closeAll();
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('hourbook report', () => {
  it('time prints a table with a total row', async () => {
    const res = await hourbook('report', 'time', 'acme', '--from', '2026-03-01', '--to', '2026-03-31', '--by', 'project,person');
    expect(res.code).toBe(0);
    const lines = res.stdout.trim().split('\n');
    expect(lines[0]).toBe('Time 2026-03-01 to 2026-03-31');
    expect(lines[1]).toMatch(/^project\s+person\s+hours\s+billable h\s+unbilled h\s+billable EUR$/);
    expect(lines.slice(2).map((l) => l.split(/\s{2,}/))).toEqual([
      ['Portal', 'Ann A', '1.5', '1.5', '1.5', '150'],
      ['Portal', 'Bob B', '1', '1', '0', '100'],
      ['Total', '2.5', '2.5', '1.5', '250'],
    ]);
  });

  it('time --csv streams the CSV download, --json the procedure answer', async () => {
    const csv = await hourbook('report', 'time', 'acme', '--from', '03/01/2026', '--to', '2026-03-31', '--by', 'person', '--csv');
    expect(csv.code).toBe(0);
    expect(parse(csv.stdout, { columns: true })).toEqual([
      { person: 'Ann A', person_id: ids.ann, entries: '1', hours: '1.5', billable_hours: '1.5', unbilled_hours: '1.5', seconds: '5400', billable_amount_EUR: '150.00', unbilled_amount_EUR: '150.00' },
      expect.objectContaining({ person: 'Bob B', billable_amount_EUR: '100.00', unbilled_amount_EUR: '0.00' }),
    ]);
    expect(csv.stdout).toContain('\r\n');
    const json = await hourbook('report', 'time', 'acme', '--from', '2026-03-01', '--to', '2026-03-31', '--by', 'month', '--project', ids.project, '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ rows: [{ keys: [{ id: '2026-03' }], seconds: 9000 }], totals: { amounts: [{ currency: 'EUR', billable_amount: 250 }] } });
  });

  it('unbilled and receivables', async () => {
    const unbilled = await hourbook('report', 'unbilled', 'acme', '--to', '2026-03-31');
    expect(unbilled.stdout).toMatch(/Globex\s+GLO-0001 Portal\s+1\.5\s+EUR\s+150\s+2026-03-02/);
    expect(unbilled.stdout).toMatch(/Total: 150 EUR \(1\.5 h\)/);
    const receivables = await hourbook('report', 'receivables', 'acme', '--json');
    expect(JSON.parse(receivables.stdout)).toMatchObject({ invoices: [{ number: 'INV-0007', balance: 500, bucket: 'over_90' }] });
    const csv = await hourbook('report', 'receivables', 'acme', '--csv', '--bom');
    expect(csv.stdout.startsWith('\uFEFFnumber,invoice_id,')).toBe(true);
  });

  it.each([
    [['report', 'time', 'acme', '--by', 'fortnight'], /--by/],
    [['report', 'time', 'acme', '--from', '2026-02-01', '--to', '2026-01-01'], /--from/],
    [['report', 'time', 'acme', '--from', '2019-01-01', '--to', '2026-01-01'], /--to/],
    [['report', 'time', 'acme', '--billable', 'maybe'], /--billable/],
    [['report', 'time', 'ghost'], /no workspace named "ghost"/],
    [['report', 'frobnicate', 'acme'], /unknown command/],
    [['report', 'receivables', 'acme', '--bom'], /--bom goes with --csv/],
    [['report', 'receivables', 'acme', '--csv', '--json'], /choose one/],
  ])('exits 1 with a message naming the flag: %j', async (args, message) => {
    const res = await hourbook(...args);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(message);
  });
});
