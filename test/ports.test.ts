import { afterEach, describe, expect, it, vi } from 'vitest';
import { END, FIRST, freePort } from './helpers/ports.ts';

describe('freePort', () => {
  afterEach(() => vi.restoreAllMocks());

  it('never hands out a port that fetch refuses to connect to (10080, a "bad port" of the Fetch standard)', async () => {
    await expect(fetch('http://127.0.0.1:10080/')).rejects.toThrow();
    // The first random pick lands on 10080, the next one in the middle of the range.
    const picks = [(10080 - FIRST + 0.5) / (END - FIRST), 0.5];
    vi.spyOn(Math, 'random').mockImplementation(() => picks.shift() ?? 0.5);
    expect(await freePort()).not.toBe(10080);
  });
});
