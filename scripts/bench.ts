/**
 * `npm run bench`: every benchmark of the service, one section after another. Each figure is
 * printed beside a floor measured in the same run, as a ratio with its goal (scripts/bench-report.ts).
 * A failed count check (acknowledged writes not stored) makes the whole run exit non-zero.
 *
 *   npm run bench                      # every section
 *   npm run bench -- write invoices    # only the sections whose name contains one of the words
 */
import { allRows, isMet, printRows } from './bench-report.ts';
import { run as invoices } from './bench-invoices.ts';
import { run as reads } from './bench-reads.ts';
import { run as reports } from './bench-reports.ts';
import { run as ship } from './bench-ship.ts';
import { run as timeEntries } from './bench-time-entries.ts';
import { run as web } from './bench-web.ts';
import { run as webhooks } from './bench-webhooks.ts';
import { run as manyWorkspaces } from './bench-workspaces.ts';

const sections: { name: string; run: () => Promise<unknown> }[] = [
  { name: 'write path', run: () => timeEntries() },
  { name: 'invoices', run: () => invoices() },
  { name: 'webhooks on the write path', run: () => webhooks() },
  { name: 'reads', run: () => reads() },
  { name: 'reports', run: () => reports() },
  { name: 'web app', run: () => web() },
  { name: 'many workspaces', run: () => manyWorkspaces() },
  { name: 'shipping: start-up, cold open, backup and move', run: () => ship() },
];

const wanted = process.argv.slice(2);
let failed = false;
for (const section of sections.filter((s) => wanted.length === 0 || wanted.some((w) => s.name.includes(w)))) {
  console.log(`\n== ${section.name}`);
  try {
    await section.run();
  } catch (err) {
    failed = true;
    console.error(`${section.name}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
console.log('\n== every figure');
printRows();
const missed = allRows().filter((r) => isMet(r) === false).length;
console.log(`${allRows().length} figures, ${missed} goal${missed === 1 ? '' : 's'} not met${failed ? '; a section FAILED (see above)' : ''}`);
if (failed) process.exitCode = 1;
