import * as z from 'zod';
import { currentPassword } from '../accounts/passwords.ts';
import { cursorInput } from '../pagination.ts';
import { dateTime, email, emailOut, idIn, idOut, nonEmptyText, timeZone } from '../fields.ts';

export const teamMemberRecord = z.object({
  id: idOut,
  email: emailOut,
  first_name: z.string(),
  last_name: z.string(),
  time_zone: z.string(),
  profile_image_url: z.string(),
  active: z.boolean(),
  organization_role: z.string(),
});
export type TeamMemberRecord = z.infer<typeof teamMemberRecord>;

const paginationRecord = z.object({
  total_records: z.number().int(),
  total_pages: z.number().int(),
  current_page: z.number().int(),
  page_size: z.number().int(),
});

/** Page numbers as the REST query gives them (strings) and as tRPC gives them (numbers). */
const pageInt = (name: string) =>
  z.preprocess(
    (v) => (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v),
    z.number({ message: `${name} must be a whole number` }).int(`${name} must be a whole number`),
  );

/** Members on a page when `page_number` is given without `page_size`. */
export const DEFAULT_PAGE_SIZE = 30;

export const listPageInput = z.object({
  /** Only the member with this address (compared ignoring case), as the vendor documents it. */
  email: email.optional().meta({ description: 'Only the team member with this e-mail address (compared ignoring case)' }),
  page_number: pageInt('page_number').pipe(z.number().min(1, 'page_number starts at 1')).optional(),
  page_size: pageInt('page_size')
    .pipe(z.number().min(1, 'page_size must be 1 to 100').max(100, 'page_size must be 1 to 100'))
    .optional()
    // Not an OpenAPI `default`: without page_number it is not 30 but every member (and "Try it out" would send it).
    .meta({ description: `Members per page, 1 to 100, when page_number is given (${DEFAULT_PAGE_SIZE} if left out); without page_number every member is returned` }),
});

export const listPageOutput = z.object({ team_members: z.array(teamMemberRecord), pagination: paginationRecord });

export const listInput = z.object({ ...cursorInput, updated_since: dateTime.optional(), active: z.boolean().optional() });
export const listOutput = z.object({ items: z.array(teamMemberRecord), next_cursor: z.string().nullable() });

export const updateInput = z.object({
  team_member_id: idIn(),
  email: email.optional(),
  first_name: nonEmptyText(100).optional(),
  last_name: nonEmptyText(100).optional(),
  time_zone: timeZone.optional(),
  organization_role: z.string().min(1, 'must not be empty').max(100).optional(),
  active: z.boolean({ message: 'must be true or false' }).optional(),
});
export const updateOutput = z.object({ team_member: teamMemberRecord });

export const createInput = z.object({
  email,
  first_name: nonEmptyText(100),
  last_name: nonEmptyText(100),
  time_zone: timeZone.optional(),
  organization_role: z.string().min(1).max(100).default('Member'),
});

/** At most this many members in one `teamMembers.create` call (bigger sets: several calls). */
export const MAX_MEMBERS_PER_CALL = 1000;

export const createManyInput = z.object({ members: z.array(createInput).min(1).max(MAX_MEMBERS_PER_CALL), current_password: currentPassword });
export const createManyOutput = z.object({ team_members: z.array(teamMemberRecord) });

