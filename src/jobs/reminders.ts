import { queueDueReminders } from '../domain/invoices/reminders.ts';
import { runInScope } from '../services.ts';
import type { Job } from './runner.ts';

/** Queues payment reminders for unpaid invoices; runs every 15 minutes, each reminder is sent once. */
export const remindersJob: Job = {
  name: 'reminders',
  everyMs: 15 * 60_000,
  run(handle, services) {
    runInScope(services, handle, queueDueReminders);
  },
};
