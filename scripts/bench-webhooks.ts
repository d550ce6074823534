/**
 * The write path with webhooks: POST /api/external/v2/time-entries under the same load as the
 * write bench (scripts/bench-time-entries.ts), once without any webhook endpoint and once with one
 * subscribed to every event, in the same run, background jobs on in both. Each time entry records
 * an event that the server fans out, signs and POSTs to a receiver in a process of its own while
 * the load goes on. Goal: with the endpoint, at least 0.9 of the throughput without it.
 *
 *   npx tsx scripts/bench-webhooks.ts            # 10 s, 10 connections
 *   BENCH_DURATION=30 BENCH_CONNECTIONS=50 npx tsx scripts/bench-webhooks.ts
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { measure, type BenchFigures } from './bench-time-entries.ts';

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

export async function run(opts: { duration?: number; connections?: number } = {}): Promise<{ ratio: number; figures: BenchFigures[] }> {
  const settings = {
    duration: opts.duration ?? Number(process.env.BENCH_DURATION ?? 10),
    connections: opts.connections ?? Number(process.env.BENCH_CONNECTIONS ?? 10),
  };
  console.log(`webhooks: POST /api/external/v2/time-entries, ${settings.duration} s, ${settings.connections} connections, jobs on, without and with an endpoint for every event`);
  const receiver = fork(fileURLToPath(import.meta.url), ['--receiver'], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  try {
    const ready = await next(receiver);
    if (!('port' in ready)) throw new Error('the webhook receiver did not start');
    const without = await measure('app', 'no webhook endpoint', settings, { jobs: true });
    const withHook = await measure('app', 'one endpoint, every event', settings, { jobs: true, webhookUrl: `http://127.0.0.1:${ready.port}/hooks` });
    receiver.send('count');
    const counted = await next(receiver);
    const received = 'received' in counted ? counted.received : 0;
    console.table(
      [without, withHook].map((f) => ({ server: f.name, 'req/s': Math.round(f.requestsPerSecond), 'p99 ms': f.p99Ms, '2xx': f.requests, failures: f.failures })),
    );
    const ratio = withHook.requestsPerSecond / without.requestsPerSecond;
    console.log(`deliveries the receiver had when the run ended: ${received}, for ${withHook.requests} time entries (and the warm-up's); the rest follow the load`);
    console.log(`with an endpoint / without: ${ratio.toFixed(2)}× the throughput (goal ≥ ${GOAL}: ${ratio >= GOAL ? 'met' : 'NOT met'})`);
    return { ratio, figures: [without, withHook] };
  } finally {
    receiver.send('exit');
  }
}

if (process.argv.includes('--receiver')) {
  await receive();
} else if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await run();
}
