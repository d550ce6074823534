import type { ApiError, FieldError } from './api.ts';
import { formatDate, formatMoney } from './format.ts';

/** What a form knows that a message may need: the currency its amounts are in. */
export interface MessageContext {
  currency?: string;
}

const ISO_DATE = /(\d{4}-\d{2}-\d{2})/;
const lastSegment = (path: string) => path.slice(path.lastIndexOf('.') + 1);

/**
 * A field's message in the app's words, where the server's is written for integrators (the type of
 * a JSON value, date formats, field names, numbers and dates as the API spells them); `undefined`:
 * the server's message reads well as it is.
 */
function fieldMessage(error: ApiError, detail: FieldError, ctx: MessageContext): string | undefined {
  const { message } = detail;
  const field = lastSegment(detail.path);
  if (field === 'hours' && message.startsWith('must be hours as a string')) return 'Not a number of hours: write it as 1.5, 0.25 or 1:30';
  if (field === 'hours' && message === 'must be at most 24 hours') return 'At most 24 hours in one entry';
  if (field === 'hours' && (message === 'must be more than 0 hours' || message === 'must be at least one second')) return 'Enter more than 0 hours';
  const decimals = /^may have at most (\d+) decimal places$/.exec(message);
  if (decimals) return `At most ${decimals[1]} decimal places`;
  if (message === 'must be a valid e-mail address' || message === 'must be an e-mail address') return 'Enter an e-mail address, such as name@example.com';
  if (message === 'must not be empty' || message === 'must be a password') return /password/.test(field) ? 'Enter your password' : 'Fill this in';
  const atLeast = /^must be at least (\d+) characters$/.exec(message);
  if (atLeast) return `Use at least ${atLeast[1]} characters`;
  const atMost = /^must be at most (\d+) characters$/.exec(message);
  if (atMost) return `Use at most ${atMost[1]} characters`;
  if (error.code === 'payment_exceeds_balance' && field === 'amount') return `More than the balance due${balanceDue(error, ctx)}`;
  if (message === 'must be a date' || message.startsWith('must be a real date as')) return 'Enter a date';
  const date = ISO_DATE.exec(message)?.[1];
  if (message.startsWith('must not be before the issue date') && date) return `Must not be before the issue date, ${formatDate(date)}`;
  if (message.startsWith('must not be in the future') && date) return `Must not be in the future (today is ${formatDate(date)})`;
  if (message === 'must not be before from') return 'Must not be before the first day';
  if (field === 'recipient_ids' && message.startsWith('must name at least one recipient')) return 'Choose at least one recipient';
  return undefined;
}

/** `, £412.00` from the error's `balance_due` in the form's currency; nothing when either is unknown. */
function balanceDue(error: ApiError, ctx: MessageContext): string {
  const due = error.extra.balance_due;
  return typeof due === 'number' && ctx.currency ? `, ${formatMoney(due, ctx.currency)}` : '';
}

/** The whole error's message (shown when no field of the form explains it), in the app's words. */
function formMessage(error: ApiError, ctx: MessageContext): string {
  if (error.code === 'payment_exceeds_balance') return `The payment is more than the balance due${balanceDue(error, ctx)}`;
  return error.message;
}

/**
 * Any day the server wrote as the API spells it (`2026-10-28`) written as the app writes days: a
 * message such as `time_entry_locked`'s ("Time on 2026-10-28 is locked … since 2026-11-01") then
 * reads like the hint beside it ("locked on Wednesday, October 28"). A day inside a longer token
 * (an invoice number such as `INV-2026-11-29`) is left alone.
 */
const withDays = (message: string) => message.replace(/(?<![\w-])(\d{4}-\d{2}-\d{2})(?![\w-])/g, (date) => formatDate(date));

/** A field's message as it stands under its label: a sentence, starting with a capital. */
export const asSentence = (message: string) => message.charAt(0).toUpperCase() + message.slice(1);

/** An entry as the approvals page lists it, for a message about it: `Grace Hopper’s 1:18 on Tuesday, November 17 (Website · Design)`. */
export interface DescribedEntry {
  id: string;
  text: string;
}

const listed = (texts: string[]) => (texts.length <= 1 ? (texts[0] ?? '') : `${texts.slice(0, -1).join('; ')} and ${texts.at(-1)}`);

/**
 * Approving or rejecting entries the page still listed, but that were deleted or decided by
 * someone else meanwhile (`time_entry_not_found`, `time_entry_not_pending`): which ones, in words
 * (never their ids), and that the list was reloaded. `null`: the error is not about that.
 */
export function staleDecisionMessage(error: ApiError, decision: 'approve' | 'reject', chosen: DescribedEntry[]): string | null {
  const idsOf = (key: string) => (Array.isArray(error.extra[key]) ? (error.extra[key] as unknown[]).filter((id): id is string => typeof id === 'string') : []);
  const gone = error.code === 'time_entry_not_found' ? idsOf('missing_ids') : error.code === 'time_entry_not_pending' ? idsOf('not_pending_ids') : null;
  if (gone === null) return null;
  const nothing = `Nothing was ${decision === 'approve' ? 'approved' : 'rejected'}`;
  const reloaded = 'The list is up to date again: choose again.';
  const named = chosen.filter((e) => gone.some((id) => id.toLowerCase() === e.id.toLowerCase())).map((e) => e.text);
  if (named.length === 0) return `${nothing}: some of the chosen entries were changed or removed meanwhile. ${reloaded}`;
  const shown = named.length > 3 ? [...named.slice(0, 3), `${named.length - 3} more`] : named;
  const was = named.length === 1 ? 'was' : 'were';
  const what = error.code === 'time_entry_not_found' ? `${was} deleted meanwhile` : `${was} already approved, rejected or moved out of approval meanwhile`;
  return `${nothing}: ${listed(shown)} ${what}. ${reloaded}`;
}

/**
 * A failed call as people should read it: the server's messages are written for the API (its
 * integrators read `must be hours as a string`, `at most the balance due, 412`); the app says the
 * same in its own words, amounts and dates formatted as it formats them. Mapped by the error's
 * code and field; messages with no mapping are kept, their days formatted.
 */
export function forPeople(error: ApiError, ctx: MessageContext = {}): ApiError {
  return {
    ...error,
    message: withDays(formMessage(error, ctx)),
    details: error.details.map((d) => ({ ...d, message: withDays(fieldMessage(error, d, ctx) ?? d.message) })),
  };
}
