import { describe, expect, it } from 'vitest';
import { WorkerCalls } from '../src/worker-calls.ts';

/** A worker that doubles `n`, answers an error for a negative one, and exits on `exit`. */
const SOURCE = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', ({ job, n, exit }) => {
  if (exit) process.exit(exit);
  if (n < 0) parentPort.postMessage({ job, error: 'negative: ' + n });
  else setTimeout(() => parentPort.postMessage({ job, result: n * 2 }), n);
});
`;

const limits = { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 };

describe('WorkerCalls', () => {
  it('answers each call with its own result, in whatever order the thread finishes them', async () => {
    const calls = new WorkerCalls<{ n: number }, number>('the doubling thread', SOURCE, limits);
    // The slower call is made first: each answer still reaches its own caller.
    await expect(Promise.all([calls.call({ n: 30 }), calls.call({ n: 1 }), calls.call({ n: 5 })])).resolves.toEqual([60, 2, 10]);
  });

  it('rejects a call the thread answers with an error, and goes on with the next', async () => {
    const calls = new WorkerCalls<{ n: number }, number>('the doubling thread', SOURCE, limits);
    await expect(calls.call({ n: -1 })).rejects.toThrow('negative: -1');
    await expect(calls.call({ n: 2 })).resolves.toBe(4);
  });

  it('fails every pending call when the thread dies, and starts a new thread for the next call', async () => {
    const calls = new WorkerCalls<{ n?: number; exit?: number }, number>('the doubling thread', SOURCE, limits);
    const pending = calls.call({ n: 200 });
    const dying = calls.call({ exit: 3 });
    await expect(pending).rejects.toThrow('the doubling thread stopped: exit code 3');
    await expect(dying).rejects.toThrow('the doubling thread stopped: exit code 3');
    await expect(calls.call({ n: 4 })).resolves.toBe(8);
  });
});
