import * as z from 'zod';
import { email, nonEmptyText, timeZone } from '../domain/fields.ts';
import { issuePasswordLink } from '../domain/accounts/links.ts';
import { provisionWorkspace } from '../domain/workspace/provision.ts';
import { check, parse, required } from './args.ts';
import { asUsage, openWorkspace, print, scopeOf, type Command } from './context.ts';

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
  const data = { subdomain: created.subdomain, api_key: created.apiKey, api_key_id: created.keyId, owner: { id: created.owner.id, email: created.owner.email } };
  if (values.json) {
    // The JSON keys are a contract of their own; `hourbook password-link` gives the link to scripts.
    print(io, true, data, '');
    return;
  }
  const link = issuePasswordLink(scopeOf(services, openWorkspace(services, created.subdomain)), { email: created.owner.email });
  io.out(`created workspace ${created.subdomain} (${name ?? created.subdomain})
owner: ${created.owner.email} (${created.owner.id})
api key ${created.keyId} (shown once): ${created.apiKey}
owner's link to set a password and sign in (works once, until ${link.expires_at}):
  ${link.link}`);
};

/** A one-time link to set a password: for `--email`, else the first active Owner (a lost first link, a locked-out Owner). */
export const passwordLink: Command = (argv, services, io) => {
  const { values, positionals } = parse(argv, { email: { type: 'string' } });
  const handle = openWorkspace(services, positionals[0]);
  const memberEmail = values.email === undefined ? undefined : check('--email', email, values.email);
  const link = asUsage(() => issuePasswordLink(scopeOf(services, handle), { email: memberEmail }));
  print(io, values.json, link, `link for ${link.email} to set a password (works once, until ${link.expires_at}):\n  ${link.link}`);
};
