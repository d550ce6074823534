import { z } from 'zod';
import { email, nonEmptyText, timeZone } from '../domain/fields.ts';
import { provisionWorkspace } from '../domain/workspace/provision.ts';
import { check, parse, required } from './args.ts';
import { asUsage, print, type Command } from './context.ts';

export const create: Command = (argv, services, io) => {
  const { values, positionals } = parse(argv, {
    name: { type: 'string' },
    'owner-email': { type: 'string' },
    'owner-first-name': { type: 'string' },
    'owner-last-name': { type: 'string' },
    'time-zone': { type: 'string' },
  });
  const subdomain = required('<subdomain>', positionals[0]);
  const ownerEmail = check('--owner-email', email, required('--owner-email', values['owner-email']));
  const zone = check('--time-zone', timeZone, values['time-zone'] ?? 'UTC');
  const name = values.name === undefined ? undefined : check('--name', nonEmptyText(200), values.name);
  const firstName = check('--owner-first-name', nonEmptyText(100), values['owner-first-name'] ?? ownerEmail.split('@')[0]);
  const lastName = check('--owner-last-name', z.string().trim().max(100), values['owner-last-name'] ?? '');
  const created = asUsage(() =>
    provisionWorkspace(services.registry, { subdomain, name, timeZone: zone, owner: { email: ownerEmail, firstName, lastName } }, services.clock()),
  );
  print(
    io,
    values.json,
    { subdomain: created.subdomain, api_key: created.apiKey, api_key_id: created.keyId, owner: { id: created.owner.id, email: created.owner.email } },
    `created workspace ${created.subdomain} (${name ?? created.subdomain})\nowner: ${created.owner.email} (${created.owner.id})\n` +
      `api key ${created.keyId} (shown once): ${created.apiKey}`,
  );
};
