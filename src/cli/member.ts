import { createTeamMember, createTeamMembers } from '../domain/team-members/create.ts';
import { AppError } from '../errors.ts';
import { createInput as memberInput } from '../domain/team-members/schemas.ts';
import { check, parse, required, UsageError } from './args.ts';
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

/** The columns of a member CSV file; `role` and `time_zone` may be left out or empty. */
const CSV_COLUMNS = ['email', 'first_name', 'last_name', 'role', 'time_zone'] as const;

/** `members.12.email` → `line 15 (email)`: the line of the file that 13th member was read from. */
const lineOf = (message: string, lines: readonly number[]) =>
  message.replace(/^members\.(\d+)(?:\.(\w+))?:?/, (_, i: string, field?: string) => `line ${lines[Number(i)] ?? Number(i) + 2}${field ? ` (${field})` : ''}:`);

/** `hourbook member import <subdomain> <file.csv>`: every member of the file in one transaction, or none. */
export const importCsv: Command = async (argv, services, io) => {
  const { values, positionals } = parse(argv, {});
  const handle = openWorkspace(services, positionals[0]);
  const file = required('<file.csv>', positionals[1]);
  const { readFile } = await import('node:fs/promises');
  const { parse: parseCsv } = await import('csv-parse/sync');
  let rows: Record<string, string>[];
  /** Each row's line in the file (blank lines are skipped, so it is not the row's place + 2). */
  let lines: number[];
  try {
    const read = parseCsv(await readFile(file), { columns: true, bom: true, skip_empty_lines: true, trim: true, info: true }) as { record: Record<string, string>; info: { lines: number } }[];
    rows = read.map((r) => r.record);
    lines = read.map((r) => r.info.lines);
  } catch (err) {
    throw new UsageError(`${file}: ${(err as Error).message}`);
  }
  const unknown = Object.keys(rows[0] ?? {}).filter((c) => !(CSV_COLUMNS as readonly string[]).includes(c));
  if (unknown.length > 0) throw new UsageError(`${file}: unknown column ${unknown.join(', ')}; the columns are ${CSV_COLUMNS.join(', ')}`);
  if (rows.length === 0) throw new UsageError(`${file}: no members in the file`);
  /** A field of data line i as the message names it: `line 7 (email)`. */
  const fieldsOfLine = (i: number) => Object.fromEntries(['email', 'first_name', 'last_name', 'time_zone', 'organization_role'].map((f) => [f, `line ${lines[i]} (${f === 'organization_role' ? 'role' : f})`]));
  const members = rows.map((row, i) =>
    check(
      `line ${lines[i]}`,
      memberInput,
      { email: row.email, first_name: row.first_name, last_name: row.last_name, organization_role: row.role || 'Member', time_zone: row.time_zone || undefined },
      fieldsOfLine(i),
    ),
  );
  let created;
  try {
    created = createTeamMembers(scopeOf(services, handle), { members });
  } catch (err) {
    if (err instanceof AppError) throw new UsageError(lineOf(err.message, lines));
    throw err;
  }
  const n = created.team_members.length;
  print(io, values.json, created, `added ${n} team member${n === 1 ? '' : 's'} to ${handle.subdomain}`);
};
