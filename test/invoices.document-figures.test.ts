import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send } from './helpers/http.ts';
import { startTestEnv, testClock, type TestEnv, type TestWorkspace } from './helpers/env.ts';
import { makeClient, makeProjectSetup, makeTimeEntry } from './helpers/factories.ts';
import { readPdf } from './helpers/pdf.ts';

/**
 * The figures a client or accountant checks on an invoice add up, on the PDF and on the public
 * page alike: the hours summaries to the total hours, and a void invoice's totals to what is left
 * (nothing, or what was paid on it, owed back).
 */

let env: TestEnv;
let ws: TestWorkspace;
const clock = testClock('2026-11-18T10:00:00.000Z');

beforeAll(async () => {
  env = await startTestEnv({ clock });
  ws = env.alpha;
});
afterAll(() => env.close());

const pdfText = async (invoiceId: string) => readPdf(Buffer.from((await ws.caller.invoices.pdf({ invoice_id: invoiceId })).base64, 'base64'));
const pageText = async (publicUrl: string) => {
  const res = await send(env.url, 'GET', new URL(publicUrl).pathname, { host: ws.host });
  expect(res.status).toBe(200);
  return res.text;
};

/** An invoice of `body` for the client, its total asked of the API first (as a client computing it would). */
async function createInvoice(clientId: string, number: string, body: Record<string, unknown>, into: TestWorkspace = ws) {
  const input = { email: into.ownerEmail, client_id: clientId, number, ...body };
  const preview = await into.caller.invoices.create({ ...input, total: 0 } as never).catch((err: { cause?: { extra?: { computed_total?: number } } }) => err.cause?.extra?.computed_total);
  expect(preview).toBeTypeOf('number');
  return (await into.caller.invoices.create({ ...input, total: preview } as never)).invoice;
}

describe('figures that add up', () => {
  it('the hours by person and by task sum to the total hours, each line counted as printed', async () => {
    const db = ws.handle.db;
    const { client, project, task, member: person } = makeProjectSetup(db, { project: { name: 'Site', hourlyRateMinor: 10000 }, member: { firstName: 'Ada', lastName: 'Lovelace' } });
    // 3,601 s each: 1.0003 h printed per line, 3.0009 h in all; the exact 10,803 s would print 3.0008.
    const lines = [1, 2, 3].map((day) => {
      const e = makeTimeEntry(db, { clientId: client.id, projectId: project.id, taskId: task.id, userId: person.id }, { seconds: 3601, recordedOn: `2026-10-0${day}` });
      return { time_entry_id: e.id, project_id: project.id, task_id: task.id, user_id: person.id };
    });
    const inv = await createInvoice(client.id, 'HRS-1', { invoice_time_entries: lines, include_hours_by_person: true, include_hours_by_task: true, include_time_entries: true, include_payment_link: true });

    const pdf = await pdfText(inv.id);
    expect(pdf.flat).toContain('Total hours: 3.0009');
    const summaryRows = pdf.lines.flat().filter((l) => l.startsWith('Ada Lovelace ') || l.startsWith(`Site · ${task.name} `));
    expect(summaryRows.length).toBe(2);
    for (const row of summaryRows) expect(row).toMatch(/ 3\.0009 \$300\.09$/);

    const page = await pageText((await ws.caller.invoices.get({ invoice_id: inv.id })).invoice.public_url!);
    const pageHours = [...page.matchAll(/<td class="num">([\d.]+) h<\/td>/g)].map((m) => m[1]);
    expect(pageHours).toEqual(['3.0009', '3.0009']);
    // The page states what the PDF states: total hours, the service period, each time entry.
    expect(page).toContain('<p class="muted">Total hours: 3.0009</p>');
    expect(pdf.flat).toContain('Service period Oct 1, 2026 – Oct 3, 2026');
    expect(page).toContain('<dt>Service period</dt><dd>Oct 1, 2026 – Oct 3, 2026</dd>');
    const entries = page.slice(page.indexOf('<h2>Time entries</h2>'));
    expect(entries).toContain('<th>Date</th><th>Person</th><th>Task</th><th>Notes</th><th class="num">Recorded</th><th class="num">Billed</th>');
    expect([...entries.matchAll(/<td data-label="Billed" class="num">1\.0003<\/td>/g)]).toHaveLength(3);
  });

  it('a void invoice: its credit note takes the total away, and what was paid on it is to be refunded', async () => {
    const client = makeClient(ws.handle.db, { name: 'Void Ltd', currency: 'USD' });
    const services = { tax_details: [{ name: 'VAT', percentage: 10, selected: true }], invoice_services: [{ notes: 'Consulting', quantity: 2, unit_amount: 500 }], include_payment_link: true };
    const paidOn = await createInvoice(client.id, 'VOID-1', services);
    const unpaid = await createInvoice(client.id, 'VOID-2', services);
    for (const inv of [paidOn, unpaid]) await ws.caller.invoices.markSent({ email: ws.ownerEmail, invoice_id: inv.id });
    await ws.caller.invoices.recordPayment({ email: ws.ownerEmail, invoice_id: paidOn.id, amount: 300, method: 'bank_transfer' });
    const paidVoid = await ws.caller.invoices.void({ email: ws.ownerEmail, invoice_id: paidOn.id });
    const unpaidVoid = await ws.caller.invoices.void({ email: ws.ownerEmail, invoice_id: unpaid.id });

    const paidPdf = await pdfText(paidOn.id);
    expect(paidPdf.flat).toContain(`Total (USD) $1,100.00\nCancelled by credit note ${paidVoid.credit_note!.number} -$1,100.00\nPaid -$300.00\nTo be refunded to you $300.00\n`);
    expect(paidPdf.flat).not.toContain('Balance due');
    const unpaidPdf = await pdfText(unpaid.id);
    expect(unpaidPdf.flat).toContain(`Total (USD) $1,100.00\nCancelled by credit note ${unpaidVoid.credit_note!.number} -$1,100.00\nBalance due $0.00\n`);

    const page = await pageText(paidVoid.invoice.public_url!);
    expect(page).toContain(`<tr><td>Cancelled by credit note ${paidVoid.credit_note!.number}</td><td class="num">-$1,100.00</td></tr><tr><td>Paid</td><td class="num">-$300.00</td></tr><tr class="strong"><td>To be refunded to you</td><td class="num">$300.00</td></tr>`);
  });

  it("a credit note's own note, when no reason was given, writes the invoice's date as the documents do", async () => {
    const de = env.workspace('cn-locale');
    await de.caller.workspace.updateIdentity({ email: de.ownerEmail, locale: 'de-DE' });
    const client = makeClient(de.handle.db, { name: 'Kunde GmbH', currency: 'EUR' });
    const inv = await createInvoice(client.id, 'DE-1', { issue_date: '2026-10-01', invoice_services: [{ notes: 'Beratung', unit_amount: 100 }] }, de);
    await de.caller.invoices.markSent({ email: de.ownerEmail, invoice_id: inv.id });
    const voided = await de.caller.invoices.void({ email: de.ownerEmail, invoice_id: inv.id });
    expect(voided.credit_note!.notes).toBe('Cancels invoice DE-1 of 01.10.2026.');
  });
});
