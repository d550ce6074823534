import { afterEach, describe, expect, it } from 'vitest';
import type { ApiError } from '../web/src/api.ts';
import { setLocale } from '../web/src/format.ts';
import { asSentence, forPeople, staleDecisionMessage } from '../web/src/messages.ts';

/**
 * The wording the review of the web app asked for (web/src/messages.ts): field messages in plain
 * words, and a decision on entries the approvals page no longer has right named in words, never by id.
 */

const error = (over: Partial<ApiError>): ApiError => ({ code: 'validation_failed', status: 422, message: 'The request is not valid', details: [], extra: {}, ...over });
const fieldMessage = (path: string, message: string) => forPeople(error({ details: [{ path, message }] })).details[0]!.message;

afterEach(() => setLocale('en-US'));

describe('field messages in plain words', () => {
  it('says hours out of range, an e-mail address and a password as people would', () => {
    expect(fieldMessage('hours', 'must be at most 24 hours')).toBe('At most 24 hours in one entry');
    expect(fieldMessage('hours', 'must be more than 0 hours')).toBe('Enter more than 0 hours');
    expect(fieldMessage('hours', 'must be at least one second')).toBe('Enter more than 0 hours');
    expect(fieldMessage('hours', 'may have at most 4 decimal places')).toBe('At most 4 decimal places');
    expect(fieldMessage('email', 'must be a valid e-mail address')).toBe('Enter an e-mail address, such as name@example.com');
    expect(fieldMessage('password', 'must not be empty')).toBe('Enter your password');
    expect(fieldMessage('current_password', 'must not be empty')).toBe('Enter your password');
    expect(fieldMessage('new_password', 'must be at least 10 characters')).toBe('Use at least 10 characters');
    expect(fieldMessage('project.name', 'must not be empty')).toBe('Fill this in');
  });

  it('puts any other field message under its label as a sentence (formErrors does, with asSentence)', () => {
    expect(asSentence(fieldMessage('to', 'no unbilled time recorded up to 2026-11-29'))).toBe('No unbilled time recorded up to Nov 29, 2026');
    expect(asSentence('Already a sentence')).toBe('Already a sentence');
  });
});

describe('a decision on entries changed meanwhile', () => {
  const ID = '75416a66-ecaf-4c67-bf6f-055eeec317ae';
  const chosen = [
    { id: ID, text: 'Grace Hopper’s 1:18 on Tuesday, November 17 (Website · Design: Client workshop)' },
    { id: 'b0000000-0000-4000-8000-000000000000', text: 'Grace Hopper’s 2:00 on Wednesday, November 18 (Website · Build)' },
  ];

  it('names a deleted entry in words, never by its id, and says the list was reloaded', () => {
    const deleted = error({ code: 'time_entry_not_found', status: 404, message: `No time entry with id ${ID} in this workspace; nothing was changed`, extra: { missing_ids: [ID.toUpperCase()] } });
    const message = staleDecisionMessage(deleted, 'approve', chosen);
    expect(message).toBe('Nothing was approved: Grace Hopper’s 1:18 on Tuesday, November 17 (Website · Design: Client workshop) was deleted meanwhile. The list is up to date again: choose again.');
    expect(message).not.toContain(ID);
  });

  it('names entries decided by someone else; says so in general when it cannot tell which', () => {
    const decided = error({ code: 'time_entry_not_pending', extra: { not_pending_ids: chosen.map((c) => c.id) } });
    expect(staleDecisionMessage(decided, 'reject', chosen)).toBe(
      'Nothing was rejected: Grace Hopper’s 1:18 on Tuesday, November 17 (Website · Design: Client workshop) and Grace Hopper’s 2:00 on Wednesday, November 18 (Website · Build) were already approved, rejected or moved out of approval meanwhile. The list is up to date again: choose again.',
    );
    expect(staleDecisionMessage(error({ code: 'time_entry_not_found', extra: {} }), 'approve', chosen)).toBe(
      'Nothing was approved: some of the chosen entries were changed or removed meanwhile. The list is up to date again: choose again.',
    );
  });

  it('leaves other errors to their own message', () => {
    expect(staleDecisionMessage(error({ code: 'forbidden', status: 403 }), 'approve', chosen)).toBeNull();
  });
});
