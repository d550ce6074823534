import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoices } from '../src/db/schema/index.ts';
import { pdfRenderStats } from '../src/pdf/invoice.ts';
import { startTestEnv, testClock, type TestEnv } from './helpers/env.ts';
import { send } from './helpers/http.ts';
import { makeClient, makeMember, makeProject, makeProjectUser, makeTask, makeTimeEntry } from './helpers/factories.ts';

let env: TestEnv;
let token: string;
let invoiceId: string;
const clock = testClock();

beforeAll(async () => {
  env = await startTestEnv({ clock });
  const db = env.alpha.handle.db;
  const client = makeClient(db, { name: 'Evil <script>alert(1)</script> Ltd', fullAddress: '1 "Quote" Street' });
  const project = makeProject(db, client.id, { name: 'Site & <b>shop</b>' });
  const task = makeTask(db, project.id, { name: 'Build' });
  const member = makeMember(db, { firstName: 'Zoë', lastName: "O'Brien" });
  makeProjectUser(db, project.id, member.id);
  const e = makeTimeEntry(db, { clientId: client.id, projectId: project.id, taskId: task.id, userId: member.id }, { notes: '<img src=x onerror=alert(2)>' });
  const res = await env.alpha.api.post(`/api/external/v2/clients/${client.id}/invoices`, {
    email: env.alpha.ownerEmail,
    number: 'PUB-<1>',
    total: 100,
    notes: 'Pay <now>',
    include_payment_link: true,
    invoice_time_entries: [{ time_entry_id: e.id, project_id: project.id, task_id: task.id, user_id: member.id }],
  });
  expect(res.status).toBe(201);
  invoiceId = res.body.invoice.id;
  token = (await env.alpha.caller.invoices.get({ invoice_id: invoiceId })).invoice.public_url.split('/invoices/')[1]!;
});
afterAll(() => env.close());

const get = (path: string, host = env.alpha.host) => send(env.url, 'GET', path, { host });

describe('GET /invoices/<token> (public, no API key)', () => {
  it('shows the invoice as HTML with everything escaped and a PDF link', async () => {
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const res = await get(`/invoices/${token}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.text).toContain('PUB-&lt;1&gt;');
    expect(res.text).toContain('Evil &lt;script&gt;alert(1)&lt;/script&gt; Ltd');
    expect(res.text).toContain('Site &amp; &lt;b&gt;shop&lt;/b&gt;');
    expect(res.text).toContain('&lt;img src=x onerror=alert(2)&gt;');
    expect(res.text).toContain('Zoë O&#39;Brien');
    expect(res.text).toContain('Pay &lt;now&gt;');
    expect(res.text).toContain('$100.00');
    expect(res.text).not.toMatch(/<script|<img|<b>/);
    expect(res.text).toContain(`href="/invoices/${token}/pdf"`);
  });

  it('serves the PDF', async () => {
    const res = await get(`/invoices/${token}/pdf`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="invoice-PUB-_1_.pdf"$/);
    expect(res.raw.subarray(0, 4).toString('latin1')).toBe('%PDF');
  });

  it('renders the PDF once per version of the invoice, shared with invoices.pdf; a change renders it anew', async () => {
    const first = await get(`/invoices/${token}/pdf`);
    const rendered = pdfRenderStats.renders;
    const again = await get(`/invoices/${token}/pdf`);
    const viaTrpc = await env.alpha.caller.invoices.pdf({ invoice_id: invoiceId });
    expect(pdfRenderStats.renders).toBe(rendered);
    expect(again.raw.equals(first.raw)).toBe(true);
    expect(Buffer.from(viaTrpc.base64, 'base64').equals(first.raw)).toBe(true);

    clock.advance(60_000);
    await env.alpha.caller.invoices.markSent({ email: env.alpha.ownerEmail, invoice_id: invoiceId });
    const paid = await get(`/invoices/${token}/pdf`);
    expect(pdfRenderStats.renders).toBe(rendered + 1);
    expect(paid.raw.equals(first.raw)).toBe(false);
  });

  it('404 HTML for unknown or malformed tokens, another workspace, and unknown hosts', async () => {
    const wrong = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    for (const [path, host] of [
      [`/invoices/${wrong}`, env.alpha.host],
      [`/invoices/short`, env.alpha.host],
      [`/invoices/${token}`, env.beta.host],
      [`/invoices/${token}/pdf`, env.beta.host],
      [`/invoices/${token}`, 'nowhere.localhost'],
      [`/invoices/${token}`, 'localhost'],
    ] as const) {
      const res = await get(path, host);
      expect(res.status, `${host}${path}`).toBe(404);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('Invoice not found');
    }
  });

  it('tokens are unique per invoice and not derived from id or number', () => {
    const rows = env.alpha.handle.db.select({ id: invoices.id, token: invoices.publicToken }).from(invoices).where(eq(invoices.id, invoiceId)).all();
    expect(rows[0]!.token).toBe(token);
    expect(token).not.toContain(invoiceId.slice(0, 8));
  });
});
