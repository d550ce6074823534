import { randomBytes, randomUUID } from 'node:crypto';
import type { Database } from '../../src/db/index.ts';
import { invoices, payments } from '../../src/db/schema/index.ts';
import { addDays } from '../../src/domain/time/calendar.ts';
import { makeClient, makeMember, makeProject, makeProjectUser, makeTask, makeTimeEntry } from './factories.ts';

/**
 * Invoices and payments written straight into a workspace file. Nothing on this branch records
 * payments yet (the payment procedures come from another branch), so the receivables and payment
 * tests insert them here.
 */

let seq = 0;

export function makeInvoice(db: Database, clientId: string, creatorId: string, over: Partial<typeof invoices.$inferInsert> = {}) {
  const n = ++seq;
  const at = over.createdAt ?? '2026-01-01T00:00:00.000Z';
  const row = {
    id: randomUUID(),
    clientId,
    creatorId,
    number: `T-${String(n).padStart(5, '0')}-${randomBytes(3).toString('hex')}`,
    status: 'sent' as const,
    currency: 'USD',
    issueDate: '2026-01-01',
    dueDate: '2026-01-31',
    subtotalMinor: 10000,
    taxMinor: 0,
    totalMinor: 10000,
    publicToken: randomBytes(32).toString('base64url'),
    kind: 'invoice' as const,
    createdAt: at,
    updatedAt: at,
    ...over,
  } satisfies typeof invoices.$inferInsert;
  db.insert(invoices).values(row).run();
  return row;
}

export function makePayment(db: Database, invoiceId: string, over: Partial<typeof payments.$inferInsert> = {}) {
  const row = {
    id: randomUUID(),
    invoiceId,
    amountMinor: 1000,
    paidOn: '2026-01-15',
    method: 'bank_transfer' as const,
    reference: '',
    providerPaymentId: null,
    recordedBy: null,
    createdAt: '2026-01-15T00:00:00.000Z',
    ...over,
  } satisfies typeof payments.$inferInsert;
  db.insert(payments).values(row).run();
  return row;
}

/**
 * A small agency's last ten weeks, for the report screens and their screenshots: three clients in
 * three currencies, five projects (one managed by Pam), four people, entries on every weekday
 * (billable and not, some awaiting approval, Acme's oldest already billed), and open invoices in
 * every ageing bucket with some payments. Deterministic: the same `today` gives the same data.
 */
export function seedAgency(db: Database, ownerId: string, today: string) {
  const acme = makeClient(db, { name: 'Acme Corp', currency: 'USD' });
  const cafe = makeClient(db, { name: 'Café Müller', currency: 'EUR' });
  const north = makeClient(db, { name: 'Northwind Traders', currency: 'GBP' });
  const project = (client: { id: string; currency: string }, name: string, rate: number) => makeProject(db, client.id, { name, currency: client.currency, hourlyRateMinor: rate });
  const website = project(acme, 'Website', 12000);
  const mobile = project(acme, 'Mobile app', 11000);
  const relaunch = project(cafe, 'Relaunch', 9500);
  const seo = project(cafe, 'SEO', 8000);
  const brand = project(north, 'Brand refresh', 10500);
  const projects = [website, mobile, relaunch, seo, brand];
  const tasks = new Map(projects.map((p) => [p.id, { work: makeTask(db, p.id, { name: p === brand ? 'Design' : 'Development' }), meetings: makeTask(db, p.id, { name: 'Meetings', billable: false }) }]));
  const mia = makeMember(db, { firstName: 'Mia', lastName: 'Member', email: 'mia@agency.test' });
  const pam = makeMember(db, { firstName: 'Pam', lastName: 'Manager', email: 'pam@agency.test' });
  const leo = makeMember(db, { firstName: 'Leo', lastName: 'Larsen', email: 'leo@agency.test' });
  const work: [typeof mia, (typeof projects)[number][]][] = [
    [mia, [website, mobile]],
    [pam, [relaunch, seo]],
    [leo, [website, relaunch, brand]],
  ];
  for (const [person, on] of work) for (const p of on) makeProjectUser(db, p.id, person.id, { role: person === pam && p === relaunch ? 'project_manager' : 'regular_user' });

  const paidAcme = makeInvoice(db, acme.id, ownerId, { number: 'INV-0001', status: 'paid', issueDate: addDays(today, -60), dueDate: addDays(today, -30), totalMinor: 480000, subtotalMinor: 480000 });
  makePayment(db, paidAcme.id, { amountMinor: 480000, paidOn: addDays(today, -35) });
  const monday = addDays(today, -((new Date(`${today}T00:00:00Z`).getUTCDay() + 6) % 7));
  let n = 0;
  for (let week = 9; week >= 0; week--) {
    for (let weekday = 0; weekday < 5; weekday++) {
      const day = addDays(monday, weekday - 7 * week);
      if (day > today) continue;
      for (const [person, on] of work) {
        n++;
        const p = on[(weekday + week) % on.length]!;
        const t = tasks.get(p.id)!;
        const meeting = n % 7 === 0;
        const status = meeting ? 'non_billable' : week === 0 && n % 4 === 0 ? 'pending_approval' : p.clientId === acme.id && week >= 6 ? 'billed' : 'unbilled';
        const seconds = (2 + (n % 5)) * 3600 + (n % 4) * 900;
        makeTimeEntry(
          db,
          { clientId: p.clientId, projectId: p.id, taskId: meeting ? t.meetings.id : t.work.id, userId: person.id },
          { recordedOn: day, seconds, enteredSeconds: seconds, status, notes: meeting ? 'Weekly check-in' : `${p.name} work`, invoiceId: status === 'billed' ? paidAcme.id : null },
        );
      }
    }
  }
  const open = (client: { id: string; currency: string }, number: string, dueInDays: number, totalMinor: number, status: 'sent' | 'partially_paid' = 'sent') =>
    makeInvoice(db, client.id, ownerId, { number, status, currency: client.currency, issueDate: addDays(today, dueInDays - 30), dueDate: addDays(today, dueInDays), totalMinor, subtotalMinor: totalMinor });
  const old = open(acme, 'INV-0002', -95, 360000, 'partially_paid');
  makePayment(db, old.id, { amountMinor: 100000, paidOn: addDays(today, -20) });
  open(cafe, 'INV-0003', -45, 285000);
  open(acme, 'INV-0004', -12, 132000);
  open(north, 'INV-0005', -70, 94500);
  open(north, 'INV-0006', 14, 210000);
  return { acme, cafe, north, website, mobile, relaunch, seo, brand, mia, pam, leo };
}
