/**
 * `npm run bench`: every benchmark of the service, one section after another. Each figure is
 * printed beside a floor measured in the same run, as a ratio with its goal (scripts/bench-report.ts).
 * A failed count check (acknowledged writes not stored) makes the whole run exit non-zero.
 *
 * Each section runs in a process of its own, so none measures in the heap, open files or timers
 * an earlier one left: a million-row report left this process large enough that every child it
 * spawned afterwards started 50 ms later (`hourbook workspace list` 337 ms in the full run, 224 ms
 * alone, and `node -e 0`, its floor, 149 ms against 115 ms).
 *
 *   npm run bench                      # every section
 *   npm run bench -- write invoices    # only the sections whose name contains one of the words
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { adoptRows, allRows, isMet, printRows, type Row } from './bench-report.ts';
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

/** Runs one section in a new process; resolves with its rows, rejects when it failed. */
function inOwnProcess(name: string): Promise<Row[]> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ['--section', name], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
    let rows: Row[] = [];
    child.on('message', (m: { rows: Row[] }) => (rows = m.rows));
    child.on('error', reject);
    child.on('exit', (code, signal) => (code === 0 ? resolve(rows) : reject(new Error(`the section's process ended with ${signal ?? `exit code ${code}`}`))));
  });
}

const own = process.argv.indexOf('--section');
if (own > 0) {
  // A child of the run below: measure one section, hand its rows to the parent.
  const section = sections.find((s) => s.name === process.argv[own + 1]);
  if (!section) throw new Error(`no section ${process.argv[own + 1]}`);
  await section.run();
  await new Promise<void>((done) => process.send!({ rows: allRows() }, () => done()));
  process.exit(0);
}

const wanted = process.argv.slice(2);
let failed = false;
for (const section of sections.filter((s) => wanted.length === 0 || wanted.some((w) => s.name.includes(w)))) {
  console.log(`\n== ${section.name}`);
  try {
    adoptRows(await inOwnProcess(section.name));
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
