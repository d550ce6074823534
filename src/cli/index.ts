import { packageVersion } from '../package.ts';
import { UsageError } from './args.ts';
import type { Command, Io } from './context.ts';
import type { Effect } from '../domain/scope.ts';

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
  { words: 'demo', args: '', serves: true, load: async () => (await import('./demo.ts')).demo },
  {
    words: 'workspace create',
    args: '<subdomain> --owner-email E [--name N] [--owner-first-name F] [--owner-last-name L] [--time-zone TZ] [--json]',
    load: async () => (await import('./workspace.ts')).create,
  },
  { words: 'workspace list', args: '[--json]', load: async () => (await import('./workspace-list.ts')).list },
  { words: 'workspace move', args: '<subdomain> --to NODE [--from NODE] [--json]', load: async () => (await import('./workspace-move.ts')).move },
  { words: 'workspace resume', args: '<subdomain> [--node NODE] [--force] [--json]', load: async () => (await import('./workspace-resume.ts')).resume },
  {
    words: 'workspace identity',
    args: '<subdomain> [--legal-name N] [--address A] [--tax-id T] [--logo FILE | --no-logo] [--sender-name N] [--reply-to E] [--payment-instructions P] [--footer F] [--locale L] [--json]',
    load: async () => (await import('./identity.ts')).identity,
  },
  {
    words: 'workspace payments',
    args: '<subdomain> [--stripe-secret-key K --stripe-webhook-secret S | --from-env | --remove] [--json]',
    load: async () => (await import('./identity.ts')).payments,
  },
  { words: 'password-link', args: '<subdomain> [--email E] [--json]', load: async () => (await import('./workspace.ts')).passwordLink },
  { words: 'key create', args: '<subdomain> [--label L] [--expires YYYY-MM-DD] [--json]', load: async () => (await import('./key.ts')).create },
  { words: 'key list', args: '<subdomain> [--json]', load: async () => (await import('./key-list.ts')).list },
  { words: 'key revoke', args: '<subdomain> <key-id>', load: async () => (await import('./key.ts')).revoke },
  {
    words: 'member add',
    args: '<subdomain> --email E --first-name F --last-name L [--role R] [--time-zone TZ] [--json]',
    load: async () => (await import('./member.ts')).add,
  },
  { words: 'member import', args: '<subdomain> <members.csv> [--json]    (columns: email, first_name, last_name, role, time_zone)', load: async () => (await import('./member.ts')).importCsv },
  { words: 'client create', args: '<subdomain> --name N [--currency USD] [--due-in-days 30] [--json]', load: async () => (await import('./client.ts')).create },
  { words: 'role add', args: '<subdomain> <RoleName>', load: async () => (await import('./role.ts')).add },
  { words: 'backup', args: '[<subdomain>...] --to DIR [--keep N] [--json]', load: async () => (await import('./backup.ts')).backup },
  { words: 'restore', args: '<backup-dir> [<subdomain>...] [--force] [--json]', load: async () => (await import('./backup.ts')).restore },
  { words: 'check', args: '[<subdomain>...] [--quick] [--json]', load: async () => (await import('./backup.ts')).check },
  { words: 'migrate', args: '[<subdomain>...] [--check] [--json]', load: async () => (await import('./migrate.ts')).migrate },
  { words: 'vacuum', args: '[<subdomain>...] [--json]', load: async () => (await import('./vacuum.ts')).vacuum },
  {
    words: 'litestream config',
    args: '[--replica URL] [--sync-interval 1s] [--endpoint URL] [--region R] [--force-path-style] [--out FILE]',
    load: async () => (await import('./litestream.ts')).config,
  },
  {
    words: 'litestream replicate',
    args: '[--replica URL] [--sync-interval 1s] [--endpoint URL] [--region R] [--force-path-style] [--config FILE]',
    serves: true,
    load: async () => (await import('./litestream.ts')).replicate,
  },
  {
    words: 'litestream restore',
    args: '[<subdomain>...] [--config FILE | --replica URL [--endpoint URL --region R --force-path-style]] [--timestamp T] [--force] [--json]',
    load: async () => (await import('./litestream-restore.ts')).restoreFromReplica,
  },
  {
    words: 'webhook add',
    args: '<subdomain> --url U [--events a.b,c.d|*] [--description D] [--disabled] [--json]',
    load: async () => (await import('./webhook.ts')).add,
  },
  { words: 'webhook list', args: '<subdomain> [--json]', load: async () => (await import('./webhook.ts')).list },
  { words: 'webhook remove', args: '<subdomain> <endpoint-id>', load: async () => (await import('./webhook.ts')).remove },
  { words: 'webhook enable', args: '<subdomain> <endpoint-id>', load: async () => (await import('./webhook.ts')).enable },
  { words: 'webhook disable', args: '<subdomain> <endpoint-id>', load: async () => (await import('./webhook.ts')).disable },
  { words: 'webhook rotate-secret', args: '<subdomain> <endpoint-id> [--json]', load: async () => (await import('./webhook.ts')).rotateSecret },
  {
    words: 'webhook deliveries',
    args: '<subdomain> <endpoint-id> [--event E] [--status pending|delivered|failed] [--limit N] [--cursor C] [--json]',
    load: async () => (await import('./webhook.ts')).deliveries,
  },
  { words: 'webhook redeliver', args: '<subdomain> <endpoint-id> <event-id> [--json]', load: async () => (await import('./webhook.ts')).redeliver },
  { words: 'webhook events', args: '<subdomain> [--type T] [--limit N] [--cursor C] [--json]', load: async () => (await import('./webhook.ts')).events },
  {
    words: 'report time',
    args: '<subdomain> [--from D] [--to D] [--by project,person] [--client IDS] [--project IDS] [--person IDS] [--billable true|false] [--status S,...] [--csv [--bom]] [--json]',
    load: async () => (await import('./report.ts')).time,
  },
  { words: 'report unbilled', args: '<subdomain> [--to D] [--client IDS] [--project IDS] [--csv [--bom]] [--json]', load: async () => (await import('./report.ts')).unbilled },
  { words: 'report receivables', args: '<subdomain> [--client IDS] [--csv [--bom]] [--json]', load: async () => (await import('./report.ts')).receivables },
];

const usageOf = (rows: CommandRow[]) => rows.map((r) => `  hourbook ${r.words}${r.args ? ` ${r.args}` : ''}`).join('\n');

export const USAGE = `hourbook — invoicing and time tracking

${usageOf(COMMANDS)}
  hourbook --version

Configuration comes from the environment (see README): PORT, HOST, DATA_DIR, BASE_DOMAIN, ...`;


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
    io.out(packageVersion());
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
  const [command, { loadConfig }, { createServices }, { settleScopes }] = await Promise.all([found.row.load(), import('../config.ts'), import('../services.ts'), import('./context.ts')]);
  const services = createServices(loadConfig());
  if (found.row.serves) {
    await command(found.rest, services, io);
    return 0;
  }
  // What the command's writes gave the jobs to do: a server serving the data directory is told.
  const woken = new Map<string, Set<Effect>>();
  services.wake = (effect, subdomain) => woken.set(subdomain, (woken.get(subdomain) ?? new Set()).add(effect));
  try {
    await command(found.rest, services, io);
  } finally {
    settleScopes();
    services.registry.closeAll();
    if (woken.size > 0) await (await import('./wake-server.ts')).wakeServer(services.config.dataDir, woken);
  }
  return 0;
}
