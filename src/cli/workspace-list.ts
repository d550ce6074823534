import { describeWorkspace } from '../domain/workspace/describe.ts';
import { parse } from './args.ts';
import { print, type Command } from './context.ts';

export const list: Command = (argv, services, io) => {
  const { values } = parse(argv, {});
  const workspaces = services.registry
    .list()
    .map((s) => describeWorkspace(services.registry, s))
    .filter((w) => w !== null);
  print(
    io,
    values.json,
    { workspaces },
    workspaces.map((w) => `${w.subdomain}\t${w.name}\t${w.team_members} members\t${w.time_zone}`).join('\n') || 'no workspaces',
  );
};
