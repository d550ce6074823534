import { createClient } from '../domain/clients/create.ts';
import { createInput as clientInput } from '../domain/clients/schemas.ts';
import { check, parse, required, UsageError } from './args.ts';
import { asUsage, openWorkspace, print, scopeOf, type Command } from './context.ts';

export const create: Command = (argv, services, io) => {
  const { values, positionals } = parse(argv, { name: { type: 'string' }, currency: { type: 'string' }, 'due-in-days': { type: 'string' } });
  const handle = openWorkspace(services, positionals[0]);
  const dueInDays = values['due-in-days'];
  if (dueInDays !== undefined && !/^\d+$/.test(dueInDays)) throw new UsageError('--due-in-days: must be a whole number of days');
  const input = check(
    'client',
    clientInput,
    {
      name: required('--name', values.name),
      currency: values.currency ?? 'USD',
      default_invoice_due_in_days: dueInDays === undefined ? 30 : Number(dueInDays),
    },
    { default_invoice_due_in_days: '--due-in-days' },
  );
  const { client } = asUsage(() => createClient(scopeOf(services, handle), input));
  print(io, values.json, client, `created client ${client.name} (${client.identifier}, ${client.currency}) as ${client.id}`);
};
