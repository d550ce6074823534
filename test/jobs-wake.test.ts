import BetterSqlite3 from 'better-sqlite3';
import { eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalDigests, invoiceReminders, projects } from '../src/db/schema/index.ts';
import { approvalDigestJob } from '../src/jobs/approval-digest.ts';
import { remindersJob } from '../src/jobs/reminders.ts';
import { runJobOnce, startJobs, type Job } from '../src/jobs/runner.ts';
import { deliverOutbox } from '../src/mail/worker.ts';
import { runInScope, type AppServices } from '../src/services.ts';
import { makeClient, makeMember, makeProject, makeProjectSetup, makeProjectUser, makeRecipient, makeTimeEntry } from './helpers/factories.ts';
import { startTestEnv, type TestEnv, type TestWorkspace } from './helpers/env.ts';

/**
 * The runner's timers run in real time, so its clock must move: this one runs at the real pace
 * from an instant the test sets.
 */
let offsetMs = 0;
const clock = () => new Date(Date.now() + offsetMs);
const setClock = (iso: string) => void (offsetMs = Date.parse(iso) - Date.now());

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv({ clock });
});
afterAll(() => env.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (check: () => boolean) => {
  for (let i = 0; i < 1_000 && !check(); i++) await sleep(5);
  expect(check()).toBe(true);
};

/**
 * A workspace, on Monday 2026-11-23 12:00 UTC, with an overdue invoice whose reminder (due date
 * Friday 2026-11-20) and a weekly project whose Monday digest are both recorded already.
 */
async function recordedWorkspace(subdomain: string): Promise<TestWorkspace> {
  const ws = env.workspace(subdomain);
  const db = ws.handle.db;
  setClock('2026-11-10T10:00:00.000Z');
  const client = makeClient(db, { name: 'Reminded Ltd' });
  const project = makeProject(db, client.id);
  const recipient = makeRecipient(db, client.id);
  const res = await ws.api.post(`/api/external/v2/clients/${client.id}/invoices`, {
    email: ws.ownerEmail,
    number: 'W-1',
    total: 50,
    due_date: '11/20/2026',
    issue_date: '11/10/2026',
    send_automated_reminder_email: true,
    invoice_services: [{ notes: 'Retainer', unit_amount: 50 }],
    project_id: [project.id],
    send_email: true,
    invoice_details: { recipient_ids: [recipient.id] },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  // Delivered at once: no reminder goes out while the invoice's own mail is still on its way.
  await deliverOutbox(ws.handle, env.services);
  const weekly = makeProjectSetup(db, { project: { enableApprovals: true, notifyWeekly: true, notificationDay: 'monday', notificationTime: '09:00' } });
  makeProjectUser(db, weekly.project.id, makeMember(db, { firstName: 'Pia' }).id, { role: 'project_manager' });
  makeTimeEntry(db, { clientId: weekly.client.id, projectId: weekly.project.id, taskId: weekly.task.id, userId: weekly.member.id }, { status: 'pending_approval', recordedOn: '2026-11-17' });

  setClock('2026-11-23T12:00:00.000Z');
  await runJobOnce(remindersJob, env.services, [subdomain]);
  await runJobOnce(approvalDigestJob, env.services, [subdomain]);
  expect(db.select().from(invoiceReminders).all().map((r) => r.remindOn)).toEqual(['2026-11-20']);
  expect(db.select().from(approvalDigests).all().map((r) => r.sentFor)).toEqual(['2026-11-23']);
  return ws;
}

describe("a write's wake-up", () => {
  it('a write that changed no row wakes no job; one that changed rows wakes them', async () => {
    const ws = env.workspace('writes');
    const woken: string[] = [];
    const services: AppServices = { ...env.services, wake: (effect, subdomain) => void woken.push(`${effect}:${subdomain}`) };
    runInScope(services, ws.handle, (scope) => scope.write((tx) => tx.select().from(projects).all()));
    runInScope(services, ws.handle, (scope) => scope.write((tx) => tx.update(projects).set({ name: 'Renamed' }).where(eq(projects.id, 'no-such-project')).run()));
    expect(woken).toEqual([]);

    const project = makeProject(ws.handle.db, makeClient(ws.handle.db).id);
    runInScope(services, ws.handle, (scope) => scope.write((tx) => tx.update(projects).set({ name: 'Renamed' }).where(eq(projects.id, project.id)).run()));
    expect(woken).toEqual(['changed:writes']);
  });
});

describe('jobs with nothing due', () => {
  it('leave a workspace alone once its reminder and digest are recorded, until a write changes something', async () => {
    const ws = await recordedWorkspace('quiet');
    const passes: Record<string, number> = {};
    const counting = (job: Job): Job => ({
      ...job,
      run(handle, services) {
        if (handle.subdomain === 'quiet') passes[job.name] = (passes[job.name] ?? 0) + 1;
        return job.run(handle, services);
      },
    });
    const running = startJobs([counting(remindersJob), counting(approvalDigestJob)], env.services, pino({ level: 'silent' }));
    const wake = env.services.wake;
    // What the server does: a committed write moves the jobs that follow writes.
    env.services.wake = (effect, subdomain) => (effect === 'changed' ? running.changed(subdomain) : running.kick(effect, subdomain));
    try {
      await until(() => passes.reminders === 1 && passes['approval-digest'] === 1);
      // Before, each pass opened a write per recorded reminder or digest and woke itself a second later.
      await sleep(3_000);
      expect(passes).toEqual({ reminders: 1, 'approval-digest': 1 });

      // A real write still moves them: one pass each about a second later, then quiet again.
      await ws.caller.clients.create({ email: ws.ownerEmail, name: 'New client' });
      await until(() => passes.reminders === 2 && passes['approval-digest'] === 2);
      await sleep(2_000);
      expect(passes).toEqual({ reminders: 2, 'approval-digest': 2 });
    } finally {
      env.services.wake = wake;
      await running.stop();
    }
  });

  it('take no write lock: a pass is not held up by another process writing the file', async () => {
    const ws = await recordedWorkspace('locked');
    const errors: string[] = [];
    const services: AppServices = { ...env.services, logger: pino({ level: 'error' }, { write: (line: string) => void errors.push(line) }) };
    // Another connection (the command line, say) holds the write lock; readers still go ahead in WAL mode.
    const other = new BetterSqlite3(ws.handle.file);
    other.exec('BEGIN IMMEDIATE');
    try {
      // Before, each pass opened a write for the recorded reminder and digest: it waited out the
      // busy timeout, failed, and was logged.
      await runJobOnce(remindersJob, services, ['locked']);
      await runJobOnce(approvalDigestJob, services, ['locked']);
      expect(errors).toEqual([]);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
  });
});
