import { recordOverdueInvoices } from '../domain/invoices/overdue.ts';
import { queueDueReminders } from '../domain/invoices/reminders.ts';
import { runInScope } from '../services.ts';
import type { Job } from './runner.ts';

/**
 * Every 15 minutes: records `invoice.overdue` for invoices that became overdue, then queues payment
 * reminders for what is still due; each event and each reminder happens once.
 */
export const remindersJob: Job = {
  name: 'reminders',
  everyMs: 15 * 60_000,
  run(handle, services) {
    runInScope(services, handle, recordOverdueInvoices);
    runInScope(services, handle, queueDueReminders);
  },
};
