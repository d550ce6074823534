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

/**
 * `hourbook migrate [--check] [<subdomain>...]`: with --check, lists each workspace's pending
 * migrations and exits 1 when any is pending; without, applies them, each file first copied to
 * DATA_DIR/backups/pre-migrate/. `serve` does the same for every workspace at start.
 */
export const migrate: Command = (argv, services, io) => {
  const { values, positionals } = parse(argv, { check: { type: 'boolean' } });
  const all = services.registry.list();
  for (const name of positionals) if (!all.includes(name)) throw new UsageError(`no workspace named "${name}" under ${services.config.dataDir}`);
  const names = positionals.length > 0 ? positionals : all;
  if (values.check) {
    const states = names.map((subdomain) => ({ subdomain, state: withFile(services.registry.fileFor(subdomain), schemaState, true) }));
    print(
      io,
      values.json,
      { workspaces: states.map(({ subdomain, state }) => ({ subdomain, schema_version: state.version, pending: state.pending.map((m) => m.tag), newer: state.newer })) },
      states.map(({ subdomain, state }) => describe(subdomain, state)).join('\n') || 'no workspaces',
    );
    const behind = states.filter(({ state }) => state.pending.length > 0).length;
    if (behind > 0) throw new UsageError(`${behind} workspace${behind === 1 ? ' has' : 's have'} pending migrations; run hourbook migrate`);
    return;
  }
  const results = names.map((subdomain) => {
    const file = services.registry.fileFor(subdomain);
    const before = withFile(file, schemaState, true);
    const backup = before.pending.length > 0 ? withFile(file, (sqlite) => migrateIfBehind(sqlite, file, services.clock()), false) : null;
    return { subdomain, applied: before.pending.map((m) => m.tag), backup };
  });
  print(
    io,
    values.json,
    { workspaces: results },
    results.map((r) => (r.applied.length ? `${r.subdomain}: applied ${r.applied.join(', ')}${r.backup ? ` (backup: ${r.backup})` : ''}` : `${r.subdomain}: up to date`)).join('\n') ||
      'no workspaces',
  );
};
