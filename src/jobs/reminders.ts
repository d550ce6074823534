import { nextReminderAt, queueDueReminders } from '../domain/invoices/reminders.ts';
import { runInScope } from '../services.ts';
import type { Job } from './runner.ts';

/**
 * Queues payment reminders for unpaid invoices, each once. The workspace is next visited at the
 * local midnight of its earliest coming reminder date, or after a write (a new due date).
 */
export const remindersJob: Job = {
  name: 'reminders',
  followsWrites: true,
  run(handle, services) {
    return runInScope(services, handle, (scope) => {
      queueDueReminders(scope);
      return nextReminderAt(scope);
    });
  },
};
