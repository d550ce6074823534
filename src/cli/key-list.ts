import { listApiKeys } from '../workspaces/keys.ts';
import { parse } from './args.ts';
import { openWorkspace, print, table, type Command } from './context.ts';

/** Every key of a workspace with its label, prefix, dates and status; the key itself is never stored. */
export const list: Command = (argv, services, io) => {
  const { values, positionals } = parse(argv, {});
  const handle = openWorkspace(services, positionals[0]);
  const keys = listApiKeys(handle.db, services.clock());
  const day = (iso: string | null) => (iso ? iso.slice(0, 16).replace('T', ' ') : '-');
  const rows = keys.map((k) => [k.id, k.prefix + '…', k.label, k.status, day(k.created_at), day(k.last_used_at), k.expires_at ? k.expires_at.slice(0, 10) : 'never']);
  const header = ['id', 'prefix', 'label', 'status', 'created', 'last used', 'expires'];
  print(io, values.json, { keys }, table([header, ...rows]));
};

