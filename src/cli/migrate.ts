import BetterSqlite3 from 'better-sqlite3';
import { migrateIfBehind, schemaState, type SchemaState } from '../workspaces/migrate.ts';
import { parse, UsageError } from './args.ts';
import { print, type Command } from './context.ts';

/** Opens one workspace file on a connection of its own (not the registry's, which would migrate on open). */
function withFile<T>(file: string, fn: (sqlite: BetterSqlite3.Database) => T, readonly: boolean): T {
  const sqlite = new BetterSqlite3(file, { readonly, fileMustExist: true });
  try {
    sqlite.pragma('busy_timeout = 5000');
    return fn(sqlite);
  } finally {
    sqlite.close();
  }
}

const describe = (subdomain: string, s: SchemaState) =>
  `${subdomain}: ${s.newer ? 'migrated by a newer hourbook than this one' : s.pending.length === 0 ? `up to date (${s.version})` : `${s.pending.length} pending: ${s.pending.map((m) => m.tag).join(', ')}`}`;

/** One workspace's part of a run: its result, or why its file could not be read or migrated. */
type Outcome<T> = { subdomain: string; result: T } | { subdomain: string; error: string };

/**
 * Runs `fn` for each workspace, going on past a file SQLite cannot read ("file is not a database"):
 * one damaged file must neither hide the others' state nor keep them from their migrations.
 */
function eachFile<T>(names: string[], fn: (subdomain: string) => T): Outcome<T>[] {
  return names.map((subdomain) => {
    try {
      return { subdomain, result: fn(subdomain) };
    } catch (err) {
      return { subdomain, error: err instanceof Error ? err.message : String(err) };
    }
  });
}

const failedLine = (o: { subdomain: string; error: string }, what: string) => `${o.subdomain}: ${what}: ${o.error} (hourbook check tells more)`;
const failures = <T>(outcomes: Outcome<T>[]) => outcomes.filter((o): o is { subdomain: string; error: string } => 'error' in o);
const successes = <T>(outcomes: Outcome<T>[]) => outcomes.filter((o): o is { subdomain: string; result: T } => 'result' in o);
const files = (n: number) => `${n} workspace file${n === 1 ? '' : 's'}`;

/**
 * `hourbook migrate [--check] [<subdomain>...]`: with --check, lists each workspace's pending
 * migrations and exits 1 when any is pending; without, applies them, each file first copied to
 * DATA_DIR/backups/pre-migrate/. `serve` does the same for every workspace at start. Either way a
 * file that cannot be read is named, the others are done, and the exit status is 1.
 */
export const migrate: Command = (argv, services, io) => {
  const { values, positionals } = parse(argv, { check: { type: 'boolean' } });
  const all = services.registry.list();
  for (const name of positionals) if (!all.includes(name)) throw new UsageError(`no workspace named "${name}" under ${services.config.dataDir}`);
  const names = positionals.length > 0 ? positionals : all;
  if (values.check) {
    checkOnly(names, services.registry.fileFor.bind(services.registry), values.json, io);
    return;
  }
  const outcomes = eachFile(names, (subdomain) => {
    const file = services.registry.fileFor(subdomain);
    const before = withFile(file, schemaState, true);
    const backup = before.pending.length > 0 ? withFile(file, (sqlite) => migrateIfBehind(sqlite, file, services.clock()), false) : null;
    return { applied: before.pending.map((m) => m.tag), backup };
  });
  const failed = failures(outcomes);
  print(
    io,
    values.json,
    { workspaces: successes(outcomes).map(({ subdomain, result }) => ({ subdomain, ...result })), failed },
    outcomes
      .map((o) =>
        'error' in o
          ? failedLine(o, 'not migrated')
          : o.result.applied.length
            ? `${o.subdomain}: applied ${o.result.applied.join(', ')}${o.result.backup ? ` (backup: ${o.result.backup})` : ''}`
            : `${o.subdomain}: up to date`,
      )
      .join('\n') || 'no workspaces',
  );
  if (failed.length > 0) throw new UsageError(`${files(failed.length)} could not be migrated; the others were`);
};

/** `migrate --check`: where each file stands; exit 1 when one is behind or cannot be read. */
function checkOnly(names: string[], fileFor: (subdomain: string) => string, json: boolean | undefined, io: Parameters<Command>[2]): void {
  const outcomes = eachFile(names, (subdomain) => withFile(fileFor(subdomain), schemaState, true));
  const states = successes(outcomes);
  const failed = failures(outcomes);
  print(
    io,
    json,
    {
      workspaces: states.map(({ subdomain, result: s }) => ({ subdomain, schema_version: s.version, pending: s.pending.map((m) => m.tag), newer: s.newer })),
      unreadable: failed,
    },
    outcomes.map((o) => ('error' in o ? failedLine(o, 'cannot be read') : describe(o.subdomain, o.result))).join('\n') || 'no workspaces',
  );
  const behind = states.filter(({ result }) => result.pending.length > 0).length;
  const problems = [
    ...(behind > 0 ? [`${behind} workspace${behind === 1 ? ' has' : 's have'} pending migrations; run hourbook migrate`] : []),
    ...(failed.length > 0 ? [`${files(failed.length)} cannot be read`] : []),
  ];
  if (problems.length > 0) throw new UsageError(problems.join('; '));
}
