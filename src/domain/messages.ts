import * as z from 'zod';

const typeNames: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list (JSON array)',
  object: 'an object',
  bigint: 'a whole number',
  date: 'a date',
};

/**
 * Messages a person can act on (docs/design.md §4) for the failures schemas do not word themselves:
 * zod's defaults ("Invalid input: expected string, received undefined") become "is required" or
 * "must be a string". Loaded once, before any schema parses.
 */
z.config({
  customError: (issue) => {
    if (issue.code === 'invalid_type') {
      if (issue.input === undefined) return 'is required';
      return `must be ${typeNames[issue.expected] ?? issue.expected}`;
    }
    if (issue.code === 'invalid_union') return 'has the wrong type or value';
    return undefined;
  },
});
