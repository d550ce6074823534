import { AppError } from '../errors.ts';

/**
 * How deep a request's JSON may nest objects and arrays: far beyond anything the contract asks for
 * (a time entry's metadata is the deepest free-form value), and far within the call stack. Readers
 * that recurse through a value (JSON.stringify, the idempotency fingerprint, exports) overflowed
 * it at a few thousand levels, which a body of 30 KB reaches.
 */
export const MAX_NESTING = 100;

/** Whether `value` nests objects and arrays more than `max` levels deep; without recursion, so any value can be asked. */
export function nestedDeeperThan(value: unknown, max = MAX_NESTING): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}

/** 422 for a body nested too deeply, naming the body as a whole. */
export const tooDeeplyNested = () =>
  new AppError('unprocessable', 'validation_failed', `The body nests objects and arrays more than ${MAX_NESTING} levels deep`, {
    details: [{ path: '(body)', message: `must not nest objects and arrays more than ${MAX_NESTING} levels deep` }],
  });
