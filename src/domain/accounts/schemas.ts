import * as z from 'zod';
import { dateTimeOut, email, emailOut, idIn, idOut, nonEmptyText, timeZone } from '../fields.ts';
import { teamMemberRecord } from '../team-members/schemas.ts';
import { currentPassword, passwordField, typedPassword } from './passwords.ts';

/** A password as typed at sign-in: never judged by the policy (old passwords stay valid), only bounded. */
/** A one-time link's token, from the link's `#token=` part. */
const linkToken = z.string({ message: 'must be the token of a link' }).min(1).max(200);

export const signInInput = z.object({ email, password: typedPassword });
export const linkInput = z.object({ token: linkToken });
export const setPasswordInput = z.object({ token: linkToken, password: passwordField });
export const changePasswordInput = z.object({ current_password: typedPassword, new_password: passwordField });
export const requestResetInput = z.object({ email });

export const inviteInput = z.object({
  email,
  first_name: nonEmptyText(100),
  last_name: nonEmptyText(100),
  time_zone: timeZone.optional(),
  organization_role: z.string().min(1).max(100).default('Member'),
  current_password: currentPassword,
});
export const sendLinkInput = z.object({ team_member_id: idIn() });

/** The signed-in person, their workspace and what the app may offer them. */
export const meRecord = z.object({
  member: z.object({
    id: idOut,
    email: emailOut,
    first_name: z.string(),
    last_name: z.string(),
    time_zone: z.string(),
    organization_role: z.string(),
  }),
  /** `locale`: the workspace's (its identity's, e.g. de-DE), for the app's dates and amounts. */
  workspace: z.object({ id: idOut, name: z.string(), subdomain: z.string(), time_zone: z.string(), locale: z.string() }),
  /** Owner or Admin: every page. */
  is_admin: z.boolean(),
  /** Manages at least one project: the approvals page. */
  manages_projects: z.boolean(),
  session_expires_at: dateTimeOut.nullable(),
});
export type MeRecord = z.infer<typeof meRecord>;

export const linkOutput = z.object({
  purpose: z.enum(['set_password', 'invite', 'reset']),
  email: emailOut,
  first_name: z.string(),
  workspace_name: z.string(),
  expires_at: dateTimeOut,
});

export const noticeOutput = z.object({ notice_code: z.string() });
export const inviteOutput = z.object({ notice_code: z.literal('team_member_invited'), team_member: teamMemberRecord, link_expires_at: dateTimeOut });
export const sendLinkOutput = z.object({ notice_code: z.literal('link_sent'), purpose: z.enum(['invite', 'reset']), link_expires_at: dateTimeOut });
export const signOutEverywhereOutput = z.object({ notice_code: z.literal('signed_out_everywhere'), sessions_ended: z.number().int(), keys_revoked: z.number().int() });
