import { describeWorkspace, type WorkspaceProblem, type WorkspaceSummary } from '../domain/workspace/describe.ts';
import { parse } from './args.ts';
import { print, type Command } from './context.ts';

const SCHEMA_NOTE = { current: '', needs_migration: '\tneeds migration (hourbook migrate)', newer: '\tmigrated by a newer hourbook' } as const;

/**
 * `hourbook workspace list [--json]`: every workspace, read without changing any file. A file that
 * is no servable workspace (damaged, or without its workspace row) is named with what is wrong,
 * under `problems` in JSON, so one bad file neither hides the others nor goes unseen.
 */
export const list: Command = (argv, services, io) => {
  const { values } = parse(argv, {});
  const workspaces: WorkspaceSummary[] = [];
  const problems: WorkspaceProblem[] = [];
  for (const subdomain of services.registry.list()) {
    const found = describeWorkspace(services.registry.fileFor(subdomain), subdomain);
    if ('problem' in found) problems.push(found);
    else workspaces.push(found);
  }
  const lines = [
    ...workspaces.map((w) => `${w.subdomain}\t${w.name}\t${w.team_members} members\t${w.time_zone}${SCHEMA_NOTE[w.schema]}`),
    ...problems.map((p) => `${p.subdomain}\tPROBLEM: ${services.registry.fileFor(p.subdomain)} ${p.problem}`),
  ];
  print(io, values.json, { workspaces, problems }, lines.join('\n') || 'no workspaces');
};
