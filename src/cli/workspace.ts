import { z } from 'zod';
import { email, nonEmptyText, timeZone } from '../domain/fields.ts';
import { describeWorkspace, provisionWorkspace } from '../domain/workspace/provision.ts';
import { check, parse, required } from './args.ts';
import { asUsage, print, type Command } from './context.ts';

export const create: Command = (argv, services, io) => {
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

export const list: Command = (argv, services, io) => {
  const { values } = parse(argv, {});
  const workspaces = services.registry
    .list()
    .map((s) => describeWorkspace(services.registry, s))
    .filter((w) => w !== null);
  print(io, values.json, { workspaces }, workspaces.map((w) => `${w.subdomain}\t${w.team_members} members\t${w.time_zone}`).join('\n') || 'no workspaces');
};
