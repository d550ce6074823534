import { createTeamMember } from '../domain/team-members/create.ts';
import { createInput as memberInput } from '../domain/team-members/schemas.ts';
import { check, parse, required } from './args.ts';
import { asUsage, openWorkspace, print, scopeOf, type Command } from './context.ts';

export const add: Command = (argv, services, io) => {
  const { values, positionals } = parse(argv, {
    email: { type: 'string' },
    'first-name': { type: 'string' },
    'last-name': { type: 'string' },
    role: { type: 'string' },
    'time-zone': { type: 'string' },
  });
  const handle = openWorkspace(services, positionals[0]);
  const flags = { organization_role: '--role' };
  const input = check(
    'member',
    memberInput,
    {
      email: required('--email', values.email),
      first_name: required('--first-name', values['first-name']),
      last_name: required('--last-name', values['last-name']),
      organization_role: values.role ?? 'Member',
      time_zone: values['time-zone'],
    },
    flags,
  );
  const member = asUsage(() => createTeamMember(scopeOf(services, handle), input), flags);
  print(io, values.json, member, `added ${member.email} (${member.organization_role}, ${member.time_zone}) as ${member.id}`);
};
