import { afterEach, describe, expect, it } from 'vitest';
import type { ApiError } from '../web/src/api.ts';
import { setLocale } from '../web/src/format.ts';
import { forPeople } from '../web/src/messages.ts';

/** The app's wording of the server's messages (web/src/messages.ts), in the workspace's locale. */

const error = (over: Partial<ApiError>): ApiError => ({ code: 'x', status: 422, message: '', details: [], extra: {}, ...over });

afterEach(() => setLocale('en-US'));

describe('forPeople', () => {
  it('writes the days of any message as the app writes days, in the workspace locale', () => {
    const locked = error({ code: 'time_entry_locked', message: 'Time on 2026-10-28 is locked for this project since 2026-11-01' });
    setLocale('en-US');
    expect(forPeople(locked).message).toBe('Time on Oct 28, 2026 is locked for this project since Nov 1, 2026');
    setLocale('de-DE');
    expect(forPeople(locked).message).toBe('Time on 28.10.2026 is locked for this project since 01.11.2026');
    const draft = error({ code: 'nothing_to_bill', details: [{ path: 'to', message: 'no unbilled time recorded up to 2026-11-29' }] });
    expect(forPeople(draft).details[0]!.message).toBe('no unbilled time recorded up to 29.11.2026');
  });

  it('leaves what only looks like a day inside a longer token, and keeps mapped messages', () => {
    setLocale('en-US');
    expect(forPeople(error({ message: 'Invoice number INV-2026-11-29 is already used' })).message).toBe('Invoice number INV-2026-11-29 is already used');
    expect(forPeople(error({ message: 'No invoice 2026-11-29X here' })).message).toBe('No invoice 2026-11-29X here');
    const before = error({ details: [{ path: 'due_date', message: 'must not be before the issue date 2026-11-18' }] });
    expect(forPeople(before).details[0]!.message).toBe('Must not be before the issue date, Nov 18, 2026');
  });
});
