import { z } from 'zod';
import { loadConfig } from '../config.ts';
import { sampleTimeEntry } from '../demo/examples.ts';
import { seedDemo } from '../demo/seed.ts';
import { createClient } from '../domain/clients/create.ts';
import { createInput as clientInput } from '../domain/clients/schemas.ts';
import { email, isCalendarDate, nonEmptyText, timeZone } from '../domain/fields.ts';
import { addRole } from '../domain/roles.ts';
import type { Scope } from '../domain/scope.ts';
import { createTeamMember } from '../domain/team-members/create.ts';
import { createInput as memberInput } from '../domain/team-members/schemas.ts';
import { describeWorkspace, provisionWorkspace } from '../domain/workspace/provision.ts';
import { AppError } from '../errors.ts';
import { startServer } from '../server.ts';
import { createServices, openWorkspaceScope, type AppServices } from '../services.ts';
import type { WorkspaceHandle } from '../workspaces/handle.ts';
import { createApiKey, revokeApiKey } from '../workspaces/keys.ts';
import { check, parse, required, UsageError } from './args.ts';

export interface Io {
  out: (line: string) => void;
}

type Command = (argv: string[], services: AppServices, io: Io) => Promise<void> | void;

const print = (io: Io, json: boolean | undefined, data: unknown, human: string) => io.out(json ? JSON.stringify(data) : human);

function openWorkspace(services: AppServices, subdomain: string | undefined): WorkspaceHandle {
  const name = required('<subdomain>', subdomain);
  const handle = services.registry.get(name);
  if (!handle) throw new UsageError(`no workspace named "${name}" under ${services.config.dataDir}`);
  return handle;
}

/** A command acts for the workspace itself (no person), like a call with the workspace's own key. */
const scopeOf = (services: AppServices, handle: WorkspaceHandle): Scope => openWorkspaceScope(services, handle).scope;

/** Domain errors (a taken e-mail, an unknown role) are bad arguments on the command line. */
function asUsage<T>(fn: () => T, flags: Record<string, string> = {}): T {
  try {
    return fn();
  } catch (err) {
    const detail = err instanceof AppError ? err.details?.[0] : undefined;
    if (detail) throw new UsageError(`${flags[detail.path] ?? `--${detail.path.replaceAll('_', '-')}`}: ${detail.message}`);
    if (err instanceof AppError) throw new UsageError(err.message);
    throw err;
  }
}

async function serve(services: AppServices, io: Io): Promise<void> {
  const running = await startServer(services);
  io.out(`hourbook listening on ${running.url} (workspaces in ${services.config.dataDir})`);
  const shutdown = (signal: string) => {
    services.logger.info({ signal }, 'shutting down: finishing requests in flight');
    void running.close().then(() => {
      services.logger.info('stopped');
      process.exit(0);
    });
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

const workspaceCreate: Command = (argv, services, io) => {
  const { values, positionals } = parse(argv, {
    'owner-email': { type: 'string' },
    'owner-first-name': { type: 'string' },
    'owner-last-name': { type: 'string' },
    'time-zone': { type: 'string' },
  });
  const subdomain = required('<subdomain>', positionals[0]);
  const ownerEmail = check('--owner-email', email, required('--owner-email', values['owner-email']));
  const zone = check('--time-zone', timeZone, values['time-zone'] ?? 'UTC');
  const firstName = check('--owner-first-name', nonEmptyText(100), values['owner-first-name'] ?? ownerEmail.split('@')[0]);
  const lastName = check('--owner-last-name', z.string().trim().max(100), values['owner-last-name'] ?? '');
  const created = asUsage(() =>
    provisionWorkspace(services.registry, { subdomain, timeZone: zone, owner: { email: ownerEmail, firstName, lastName } }, services.clock()),
  );
  print(
    io,
    values.json,
    { subdomain: created.subdomain, api_key: created.apiKey, owner: { id: created.owner.id, email: created.owner.email } },
    `created workspace ${created.subdomain}\nowner: ${created.owner.email} (${created.owner.id})\napi key (shown once): ${created.apiKey}`,
  );
};

const workspaceList: Command = (argv, services, io) => {
  const { values } = parse(argv, {});
  const workspaces = services.registry
    .list()
    .map((s) => describeWorkspace(services.registry, s))
    .filter((w) => w !== null);
  print(io, values.json, { workspaces }, workspaces.map((w) => `${w.subdomain}\t${w.team_members} members\t${w.time_zone}`).join('\n') || 'no workspaces');
};

const keyCreate: Command = (argv, services, io) => {
  const { values, positionals } = parse(argv, { label: { type: 'string' }, expires: { type: 'string' } });
  const handle = openWorkspace(services, positionals[0]);
  const label = check('--label', nonEmptyText(100), values.label ?? 'default');
  let expiresAt: string | null = null;
  if (values.expires !== undefined) {
    if (!isCalendarDate(values.expires)) throw new UsageError('--expires: must be a date as YYYY-MM-DD');
    expiresAt = `${values.expires}T00:00:00.000Z`;
    if (Date.parse(expiresAt) <= services.clock().getTime()) throw new UsageError('--expires: must be in the future');
  }
  const key = createApiKey(handle.db, { label, expiresAt, now: services.clock() });
  print(io, values.json, { id: key.id, api_key: key.apiKey }, `key ${key.id} (${label}${expiresAt ? `, expires ${values.expires}` : ''})\n${key.apiKey}`);
};

const keyRevoke: Command = (argv, services, io) => {
  const { values, positionals } = parse(argv, {});
  const handle = openWorkspace(services, positionals[0]);
  const keyId = required('<key-id>', positionals[1]);
  if (!revokeApiKey(handle.db, keyId, services.clock())) throw new UsageError(`no live key ${keyId} in ${handle.subdomain}`);
  print(io, values.json, { id: keyId, revoked: true }, `revoked key ${keyId}`);
};

const memberAdd: Command = (argv, services, io) => {
  const { values, positionals } = parse(argv, {
    email: { type: 'string' },
    'first-name': { type: 'string' },
    'last-name': { type: 'string' },
    role: { type: 'string' },
    'time-zone': { type: 'string' },
  });
  const handle = openWorkspace(services, positionals[0]);
  const input = check('member', memberInput, {
    email: required('--email', values.email),
    first_name: required('--first-name', values['first-name']),
    last_name: required('--last-name', values['last-name']),
    organization_role: values.role ?? 'Member',
    time_zone: values['time-zone'],
  }, { organization_role: '--role' });
  const member = asUsage(() => createTeamMember(scopeOf(services, handle), input), {
    organization_role: '--role',
  });
  print(io, values.json, member, `added ${member.email} (${member.organization_role}, ${member.time_zone}) as ${member.id}`);
};

const clientCreate: Command = (argv, services, io) => {
  const { values, positionals } = parse(argv, { name: { type: 'string' }, currency: { type: 'string' }, 'due-in-days': { type: 'string' } });
  const handle = openWorkspace(services, positionals[0]);
  const dueInDays = values['due-in-days'];
  if (dueInDays !== undefined && !/^\d+$/.test(dueInDays)) throw new UsageError('--due-in-days: must be a whole number of days');
  const input = check('client', clientInput, {
    name: required('--name', values.name),
    currency: values.currency ?? 'USD',
    default_invoice_due_in_days: dueInDays === undefined ? 30 : Number(dueInDays),
  }, { default_invoice_due_in_days: '--due-in-days' });
  const { client } = asUsage(() => createClient(scopeOf(services, handle), input));
  print(io, values.json, client, `created client ${client.name} (${client.identifier}, ${client.currency}) as ${client.id}`);
};

const roleAdd: Command = (argv, services, io) => {
  const { values, positionals } = parse(argv, {});
  const handle = openWorkspace(services, positionals[0]);
  const name = required('<RoleName>', positionals[1]);
  asUsage(() => addRole(scopeOf(services, handle), { name }));
  print(io, values.json, { role: name }, `added role ${name}`);
};

const DEMO = 'demo';

async function demo(argv: string[], services: AppServices, io: Io): Promise<void> {
  parse(argv, {});
  const now = services.clock();
  let handle = services.registry.get(DEMO);
  if (!handle) {
    provisionWorkspace(services.registry, { subdomain: DEMO, name: 'Demo Agency', timeZone: 'Europe/Berlin', owner: { email: 'owner@demo.localhost', firstName: 'Olivia', lastName: 'Owner' } }, now);
    handle = openWorkspace(services, DEMO);
  }
  seedDemo(scopeOf(services, handle));
  const key = createApiKey(handle.db, { label: 'demo', now });
  const { port, baseDomain } = services.config;
  const headers = `-H 'Host: ${DEMO}.${baseDomain}' -H 'X-Api-Key: ${key.apiKey}'`;
  const entry = sampleTimeEntry(handle, now.toISOString().slice(0, 10));
  io.out(`demo workspace ready: ${DEMO}.${baseDomain}
api key: ${key.apiKey}
try:
  curl ${headers} -H 'Accept: application/json' http://localhost:${port}/api/external/v2/team-members
${entry ? `  curl ${headers} -H 'Content-Type: application/json' -d '${JSON.stringify(entry)}' http://localhost:${port}/api/external/v2/time-entries
` : ''}  open http://localhost:${port}/docs for the API reference
`);
  await serve(services, io);
}

export const USAGE = `hourbook — invoicing and time tracking

  hourbook serve
  hourbook demo
  hourbook workspace create <subdomain> --owner-email E [--owner-first-name F] [--owner-last-name L] [--time-zone TZ] [--json]
  hourbook workspace list [--json]
  hourbook key create <subdomain> [--label L] [--expires YYYY-MM-DD] [--json]
  hourbook key revoke <subdomain> <key-id>
  hourbook member add <subdomain> --email E --first-name F --last-name L [--role R] [--time-zone TZ] [--json]
  hourbook client create <subdomain> --name N [--currency USD] [--due-in-days 30] [--json]
  hourbook role add <subdomain> <RoleName>

Configuration comes from the environment (see README): PORT, HOST, DATA_DIR, BASE_DOMAIN, ...`;

const commands: Record<string, Command> = {
  'workspace create': workspaceCreate,
  'workspace list': workspaceList,
  'key create': keyCreate,
  'key revoke': keyRevoke,
  'member add': memberAdd,
  'client create': clientCreate,
  'role add': roleAdd,
};

/** Runs one command line; returns the exit status (the server commands keep the process alive). */
export async function run(argv: string[], io: Io): Promise<number> {
  const [first, second, ...rest] = argv;
  if (!first || first === '--help' || first === '-h' || first === 'help') {
    io.out(USAGE);
    return first ? 0 : 1;
  }
  const services = createServices(loadConfig());
  if (first === 'serve') {
    parse([second, ...rest].filter((a): a is string => a !== undefined), {});
    await serve(services, io);
    return 0;
  }
  if (first === 'demo') {
    await demo([second, ...rest].filter((a): a is string => a !== undefined), services, io);
    return 0;
  }
  const command = commands[`${first} ${second ?? ''}`];
  if (!command) throw new UsageError(`unknown command "${[first, second].filter(Boolean).join(' ')}"\n\n${USAGE}`);
  try {
    await command(rest, services, io);
  } finally {
    services.registry.closeAll();
  }
  return 0;
}
