/**
 * `npm run bench`: every benchmark of the service, one after another. Each module exports `run()`,
 * which prints its own figures.
 */
import { run as invoices } from './bench-invoices.ts';
import { run as timeEntries } from './bench-time-entries.ts';
import { run as web } from './bench-web.ts';

const benches: { name: string; run: () => Promise<unknown> }[] = [
  { name: 'time entries', run: () => timeEntries() },
  { name: 'invoice generation', run: () => invoices() },
  { name: 'web app', run: () => web() },
];

for (const bench of benches) {
  console.log(`\n== ${bench.name}`);
  await bench.run();
}
