import { isCalendarDate, nonEmptyText } from '../domain/fields.ts';
import { createApiKey, revokeApiKey } from '../workspaces/keys.ts';
import { check, parse, requiredId, UsageError } from './args.ts';
import { openWorkspace, print, type Command } from './context.ts';

export const create: Command = (argv, services, io) => {
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

export const revoke: Command = (argv, services, io) => {
  const { values, positionals } = parse(argv, {});
  const handle = openWorkspace(services, positionals[0]);
  const keyId = requiredId('<key-id>', positionals[1]);
  if (!revokeApiKey(handle.db, keyId, services.clock())) throw new UsageError(`no live key ${keyId} in ${handle.subdomain}`);
  print(io, values.json, { id: keyId, revoked: true }, `revoked key ${keyId}`);
};
