import { readFileSync } from 'node:fs';
import { UsageError } from './args.ts';
import type { Command, Io } from './context.ts';

/**
 * One row per command. Each names the module that holds it, loaded only when that command runs,
 * so `hourbook key list` never loads the web server, the PDF renderer or the mail transport.
 */
interface CommandRow {
  /** `serve`, or `workspace create`: the words that select the command. */
  words: string;
  /** The arguments after the words, as the usage shows them. */
  args: string;
  load: () => Promise<Command>;
  /** The command serves until a signal; the process stays up and the registry stays open. */
  serves?: boolean;
}

export const COMMANDS: CommandRow[] = [
  { words: 'serve', args: '', serves: true, load: async () => (await import('./serve.ts')).serve },
  { words: 'demo', args: '', serves: true, load: async () => (await import('./serve.ts')).demo },
  {
    words: 'workspace create',
    args: '<subdomain> --owner-email E [--owner-first-name F] [--owner-last-name L] [--time-zone TZ] [--json]',
    load: async () => (await import('./workspace.ts')).create,
  },
  { words: 'workspace list', args: '[--json]', load: async () => (await import('./workspace.ts')).list },
  { words: 'password-link', args: '<subdomain> [--email E] [--json]', load: async () => (await import('./workspace.ts')).passwordLink },
  { words: 'key create', args: '<subdomain> [--label L] [--expires YYYY-MM-DD] [--json]', load: async () => (await import('./key.ts')).create },
  { words: 'key revoke', args: '<subdomain> <key-id>', load: async () => (await import('./key.ts')).revoke },
  {
    words: 'member add',
    args: '<subdomain> --email E --first-name F --last-name L [--role R] [--time-zone TZ] [--json]',
    load: async () => (await import('./member.ts')).add,
  },
  { words: 'client create', args: '<subdomain> --name N [--currency USD] [--due-in-days 30] [--json]', load: async () => (await import('./client.ts')).create },
  { words: 'role add', args: '<subdomain> <RoleName>', load: async () => (await import('./role.ts')).add },
];

const usageOf = (rows: CommandRow[]) => rows.map((r) => `  hourbook ${r.words}${r.args ? ` ${r.args}` : ''}`).join('\n');

export const USAGE = `hourbook — invoicing and time tracking

${usageOf(COMMANDS)}
  hourbook --version

Configuration comes from the environment (see README): PORT, HOST, DATA_DIR, BASE_DOMAIN, ...`;

export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** The row a command line selects: one word (`serve`) or two (`workspace create`). */
function find(argv: string[]): { row: CommandRow; rest: string[] } | null {
  for (const row of COMMANDS) {
    const words = row.words.split(' ');
    if (words.every((w, i) => argv[i] === w)) return { row, rest: argv.slice(words.length) };
  }
  return null;
}

/** Runs one command line; returns the exit status (the serving commands keep the process alive). */
export async function run(argv: string[], io: Io): Promise<number> {
  const [first, second] = argv;
  if (!first || first === '--help' || first === '-h' || first === 'help') {
    io.out(USAGE);
    return first ? 0 : 1;
  }
  if (first === '--version' || first === '-v') {
    io.out(version());
    return 0;
  }
  const found = find(argv);
  if (!found) {
    const group = COMMANDS.filter((r) => r.words.startsWith(`${first} `));
    if (group.length > 0 && (second === undefined || second === '--help' || second === '-h')) {
      io.out(`hourbook ${first} — commands:\n\n${usageOf(group)}`);
      return second === undefined ? 1 : 0;
    }
    const shown = group.length > 0 ? usageOf(group) : USAGE;
    throw new UsageError(`unknown command "${[first, second].filter(Boolean).join(' ')}"\n\n${shown}`);
  }
  const [command, { loadConfig }, { createServices }] = await Promise.all([found.row.load(), import('../config.ts'), import('../services.ts')]);
  const services = createServices(loadConfig());
  if (found.row.serves) {
    await command(found.rest, services, io);
    return 0;
  }
  try {
    await command(found.rest, services, io);
  } finally {
    services.registry.closeAll();
  }
  return 0;
}
