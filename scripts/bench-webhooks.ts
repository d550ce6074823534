/**
 * The write path with webhooks: POST /api/external/v2/time-entries under the same load as the
 * write bench (scripts/bench-time-entries.ts), once without any webhook endpoint and once with one
 * subscribed to every event, in the same run, background jobs on in both. Each time entry records
 * an event that the server fans out, signs and POSTs to a receiver in a process of its own while
 * the load goes on. Goal: with the endpoint, at least 0.9 of the throughput without it.
 *
 *   npx tsx scripts/bench-webhooks.ts            # 3 rounds of 5 s, 20 connections
 *   BENCH_DURATION=10 BENCH_ROUNDS=5 npx tsx scripts/bench-webhooks.ts
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { printRows, record } from './bench-report.ts';
import { checkStored, load, median, startChild, WARMUP_SECONDS, type Served } from './bench-time-entries.ts';

const GOAL = 0.9;

type FromReceiver = { port: number } | { received: number };

/** The receiver: answers every delivery 204 at once and counts them. */
async function receive(): Promise<void> {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.send?.({ port: (server.address() as AddressInfo).port } satisfies FromReceiver);
  process.on('message', (msg) => {
    if (msg === 'count') process.send?.({ received } satisfies FromReceiver);
    if (msg === 'exit') process.exit(0);
  });
}

const next = (proc: ChildProcess) => new Promise<FromReceiver>((resolve) => proc.once('message', (m) => resolve(m as FromReceiver)));

const SECTION = 'webhooks';

/**
 * Two app servers up at once, one without an endpoint and one with, loaded in turn (A/B
 * alternated) so both meet the same machine; the medians are compared.
 */
export async function run(opts: { duration?: number; connections?: number; rounds?: number } = {}): Promise<void> {
  const settings = {
    duration: opts.duration ?? Number(process.env.BENCH_DURATION ?? 5),
    connections: opts.connections ?? Number(process.env.BENCH_CONNECTIONS ?? 20),
    rounds: opts.rounds ?? Number(process.env.BENCH_ROUNDS ?? 3),
  };
  const synchronous = process.env.SQLITE_SYNCHRONOUS ?? 'FULL';
  console.log(`webhooks: POST /api/external/v2/time-entries, ${settings.rounds} rounds of ${settings.duration} s per server, ${settings.connections} connections, jobs on, without and with an endpoint for every event`);
  const receiver = fork(fileURLToPath(import.meta.url), ['--receiver'], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  const servers: Served[] = [];
  try {
    const ready = await next(receiver);
    if (!('port' in ready)) throw new Error('the webhook receiver did not start');
    const without = await startChild('app', synchronous, { jobs: true });
    servers.push(without);
    const withHook = await startChild('app', synchronous, { jobs: true, webhookUrl: `http://127.0.0.1:${ready.port}/hooks` });
    servers.push(withHook);
    for (const s of servers) await load(s, WARMUP_SECONDS, settings.connections);
    const rps = { without: [] as number[], with: [] as number[] };
    for (let round = 0; round < settings.rounds; round++) {
      rps.without.push((await load(without, settings.duration, settings.connections)).rps);
      rps.with.push((await load(withHook, settings.duration, settings.connections)).rps);
    }
    for (const s of servers) await checkStored(s, settings.connections);
    receiver.send('count');
    const counted = await next(receiver);
    const received = 'received' in counted ? counted.received : 0;
    console.log(`deliveries the receiver had when the run ended: ${received}, for ${withHook.answered} time entries; the rest follow the load`);
    record({
      section: SECTION,
      figure: `POST v2 time entry with an endpoint for every event, ${synchronous}: req/s`,
      value: median(rps.with),
      unit: 'req/s',
      floor: { value: median(rps.without), label: 'the same server without any endpoint' },
      goal: { of: 'ratio', atLeast: GOAL },
    });
    printRows(SECTION);
  } finally {
    for (const s of servers) s.proc.send('exit');
    receiver.send('exit');
  }
}

if (process.argv.includes('--receiver')) {
  await receive();
} else if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await run();
}
