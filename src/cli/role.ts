import { addRole } from '../domain/roles.ts';
import { parse, required } from './args.ts';
import { asUsage, openWorkspace, print, scopeOf, type Command } from './context.ts';

export const add: Command = (argv, services, io) => {
  const { values, positionals } = parse(argv, {});
  const handle = openWorkspace(services, positionals[0]);
  const name = required('<RoleName>', positionals[1]);
  asUsage(() => addRole(scopeOf(services, handle), { name }));
  print(io, values.json, { role: name }, `added role ${name}`);
};
