import { recordOverdueInvoices } from '../domain/invoices/overdue.ts';
import { nextOverdueAt, nextReminderAt, queueDueReminders } from '../domain/invoices/reminders.ts';
import { runInScope } from '../services.ts';
import type { Job } from './runner.ts';

/**
 * Records `invoice.overdue` for invoices that became overdue, then queues payment reminders for
 * what is still due; each event and each reminder happens once. The workspace is next visited at
 * the local midnight of its earliest coming due or reminder date, or after a write (a new due date,
 * a payment).
 */
export const remindersJob: Job = {
  name: 'reminders',
  followsWrites: true,
  run(handle, services) {
    return runInScope(services, handle, (scope) => {
      recordOverdueInvoices(scope);
      queueDueReminders(scope);
      return Math.min(nextOverdueAt(scope), nextReminderAt(scope));
    });
  },
};
