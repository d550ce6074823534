import * as z from 'zod';
import './messages.ts';
import { lowerCaseUuid } from './uuid.ts';

/**
 * Field schemas shared by every resource, so each rule is written once and both doors (REST and
 * tRPC) and the command line accept exactly the same values.
 */

/**
 * The id of a record named by a request (a path parameter or a body field): any string, so an
 * unknown or malformed one is a 404 for its resource, never a 422; a UUID in upper case finds the
 * same record as in lower case.
 */
export const idIn = (message = 'must be an id') => z.string({ message }).overwrite(lowerCaseUuid);

/*
 * Response fields, for the OpenAPI document only: they state the format a value always has (so
 * generated clients and the contract tests know it) without checking it again at run time, where a
 * stored value that somehow differed would turn a good request into a 500.
 */
/** An id the application generated: a UUID v4. */
export const idOut = z.string().meta({ format: 'uuid' });
/** A stored ISO 8601 UTC date-time with milliseconds, e.g. `2026-03-01T09:30:00.000Z`. */
export const dateTimeOut = z.string().meta({ format: 'date-time' });
/** A calendar day as `YYYY-MM-DD`. */
export const dateOut = z.string().meta({ format: 'date' });
/** An address that was checked by `email` when it was stored. */
export const emailOut = z.string().meta({ format: 'email' });

/** Trims, checks and lower-cases the domain part (the local part is kept as given). */
function normalizeEmail(value: string): string {
  const trimmed = value.trim();
  const at = trimmed.lastIndexOf('@');
  return at < 0 ? trimmed : trimmed.slice(0, at) + '@' + trimmed.slice(at + 1).toLowerCase();
}

export const email = z
  .string({ message: 'must be an e-mail address' })
  .trim()
  .max(254, 'must be at most 254 characters')
  .pipe(z.email({ message: 'must be a valid e-mail address' }))
  .transform(normalizeEmail)
  // Not `format: email` in the OpenAPI document: surrounding white space is accepted and trimmed.
  .meta({ description: 'An e-mail address; surrounding white space is trimmed and the domain lower-cased', example: 'jane@example.com' });

const zoneCache = new Map<string, string | null>();
/**
 * Current IANA names that ICU (as built into Node 20) lists only under an older name
 * (`Asia/Calcutta`, `Europe/Kiev`, ...) or not at all (`UTC`): valid zones, whose case
 * `zonesByLowerCase` must fix too.
 */
const CURRENT_NAMES_ICU_LISTS_OTHERWISE = [
  'UTC', 'Etc/UTC', 'Etc/GMT', 'GMT',
  'Africa/Asmara', 'America/Argentina/Buenos_Aires', 'America/Argentina/Catamarca', 'America/Argentina/Cordoba',
  'America/Argentina/Jujuy', 'America/Argentina/Mendoza', 'America/Atikokan', 'America/Indiana/Indianapolis',
  'America/Kentucky/Louisville', 'America/Nuuk', 'Asia/Ho_Chi_Minh', 'Asia/Kathmandu', 'Asia/Kolkata', 'Asia/Yangon',
  'Atlantic/Faroe', 'Europe/Kyiv', 'Pacific/Chuuk', 'Pacific/Kanton', 'Pacific/Pohnpei',
];
/** Zone names by lower-case spelling, to fix the case of `europe/berlin` or `asia/kolkata`. */
const zonesByLowerCase = new Map([...Intl.supportedValuesOf('timeZone'), ...CURRENT_NAMES_ICU_LISTS_OTHERWISE].map((z) => [z.toLowerCase(), z]));

/**
 * The IANA name of a time zone as the caller spelled it (case fixed), or null. Current names such
 * as `Asia/Kolkata` and `UTC` are kept rather than replaced by ICU's older canonical names; an
 * older alias outside both lists is kept as spelled; offsets such as `+02:00` are not zones.
 */
function canonicalTimeZone(value: string): string | null {
  const cached = zoneCache.get(value);
  if (cached !== undefined) return cached;
  let result: string | null = null;
  if (/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(value)) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: value });
      result = zonesByLowerCase.get(value.toLowerCase()) ?? value;
    } catch {
      result = null;
    }
  }
  if (zoneCache.size < 1000) zoneCache.set(value, result);
  return result;
}

export const timeZone = z
  .string({ message: 'must be a time zone name' })
  .trim()
  .transform((value, ctx) => {
    const zone = canonicalTimeZone(value);
    if (!zone) {
      ctx.addIssue({ code: 'custom', message: `"${value}" is not an IANA time zone (e.g. Europe/Berlin)` });
      return z.NEVER;
    }
    return zone;
  })
  .meta({ example: 'Europe/Berlin' });

const currencies = new Set(Intl.supportedValuesOf('currency'));

export const currency = z
  .string({ message: 'must be a currency code' })
  .trim()
  .toUpperCase()
  .refine((c) => currencies.has(c), { message: 'must be an ISO 4217 currency code such as USD or EUR' })
  .meta({ example: 'USD' });


/** `YYYY-MM-DD` that names a real calendar day. */
export function isCalendarDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/**
 * A date in `YYYY-MM-DD` or `MM/DD/YYYY`, returned as `YYYY-MM-DD`. Impossible dates (02/30/2026)
 * are rejected.
 */
export const flexibleDate = z.string({ message: 'must be a date' }).transform((value, ctx) => {
  const v = value.trim();
  const us = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(v);
  const iso = us ? `${us[3]}-${us[1]}-${us[2]}` : v;
  if (!isCalendarDate(iso)) {
    ctx.addIssue({ code: 'custom', message: 'must be a real date as YYYY-MM-DD or MM/DD/YYYY' });
    return z.NEVER;
  }
  return iso;
}).meta({ example: '2026-11-18' });

/** An ISO 8601 date-time, for `updated_since`; normalised to UTC with milliseconds. */
export const dateTime = z.iso
  .datetime({ offset: true, message: 'must be an ISO 8601 date-time' })
  .transform((v) => new Date(v).toISOString());

/** A character no one-line text may hold: C0 controls (line breaks, tabs, NUL) and DEL. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/** The one error of every one-line text field. */
export const ONE_LINE_MESSAGE = 'must be one line of text, without line breaks, tabs or other control characters';

/** True for text without control characters: the one-line rule of names, numbers and labels. */
export const isOneLine = (value: string): boolean => !CONTROL_CHARACTER.test(value);

/**
 * One line of text (a name, a number, a label): trimmed, not empty, at most `max` characters, and
 * without control characters, which would break the line wherever it is shown (a recipient named
 * "A\r\nBcc: …" greeted in an e-mail's text, a CSV cell, a PDF).
 */
export const nonEmptyText = (max = 255) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .refine(isOneLine, ONE_LINE_MESSAGE);
