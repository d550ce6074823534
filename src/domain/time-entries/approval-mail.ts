import type { Db } from '../../db/index.ts';
import { enqueueMail } from '../../mail/outbox.ts';
import type { Scope } from '../scope.ts';
import { fullName } from '../team-members/records.ts';
import { formatDay } from '../invoices/format.ts';
import { readIdentityIn } from '../workspace/identity.ts';
import { clockHours } from '../time/hours.ts';

interface Manager {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
}

export interface PendingEntryLine {
  id: string;
  recordedOn: string;
  seconds: number;
  notes: string;
  userName: string;
  userEmail: string;
  taskName: string;
}

/** Durations as H:MM, as the app shows them ("1:30 h"). */
const formatHours = (seconds: number) => `${clockHours(seconds)} h`;

/**
 * Queues "an entry awaits your approval" to each project manager, in the caller's transaction.
 * The entry's own user is left out: asking someone to approve their own time is noise. Returns how
 * many messages were queued.
 */
export function queueApprovalRequests(
  scope: Scope,
  tx: Db,
  project: { name: string; replyTo: string | null },
  entry: PendingEntryLine,
  managers: Manager[],
  entryUserId: string,
): number {
  let queued = 0;
  // Read only when a message is written: most entries of such projects go to no one but their user.
  let locale: string | undefined;
  for (const manager of managers) {
    if (manager.id === entryUserId) continue;
    locale ??= readIdentityIn(tx, scope.workspace.name).locale;
    enqueueMail(scope, tx, {
        kind: 'approval_request',
        to: { address: manager.email, name: fullName(manager) },
        replyTo: project.replyTo,
        subject: `Time awaiting approval: ${entry.userName}, ${formatHours(entry.seconds)} on ${project.name}`,
        text: [
          `Hello ${manager.firstName},`,
          '',
          `${entry.userName} <${entry.userEmail}> recorded time on ${project.name} that awaits your approval:`,
          '',
          `  Date:    ${formatDay(locale, entry.recordedOn)}`,
          `  Task:    ${entry.taskName}`,
          `  Hours:   ${formatHours(entry.seconds)}`,
          ...(entry.notes ? [`  Notes:   ${entry.notes}`] : []),
          `  Entry:   ${entry.id}`,
          '',
          'Approve or reject it in hourbook.',
        ].join('\n'),
    });
    queued++;
  }
  return queued;
}

/**
 * The body of a project's weekly digest: every entry still awaiting approval on `asOf` (the day it
 * is sent), whatever week it was recorded in, dates in the workspace's `locale`.
 */
export function digestMail(project: { name: string }, manager: Manager, entries: PendingEntryLine[], total: number, asOf: string, locale: string) {
  const totalSeconds = entries.reduce((sum, e) => sum + e.seconds, 0);
  const lines = entries.map((e) => `  ${formatDay(locale, e.recordedOn)}  ${formatHours(e.seconds).padStart(9)}  ${e.userName} — ${e.taskName}${e.notes ? ` — ${e.notes}` : ''}`);
  const more = total > entries.length ? [`  ... and ${total - entries.length} more`] : [];
  return {
    subject: `${total} time ${total === 1 ? 'entry' : 'entries'} awaiting approval on ${project.name}`,
    text: [
      `Hello ${manager.firstName},`,
      '',
      `These entries on ${project.name} await your approval as of ${formatDay(locale, asOf)}:`,
      '',
      ...lines,
      ...more,
      '',
      `Listed: ${entries.length} entries, ${formatHours(totalSeconds)}.`,
      '',
      'Approve or reject them in hourbook.',
    ].join('\n'),
  };
}
