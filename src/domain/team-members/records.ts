import type { teamMembers } from '../../db/schema/index.ts';
import type { TeamMemberRecord } from './schemas.ts';

export type TeamMemberRow = typeof teamMembers.$inferSelect;

export const toTeamMemberRecord = (row: TeamMemberRow): TeamMemberRecord => ({
  id: row.id,
  email: row.email,
  first_name: row.firstName,
  last_name: row.lastName,
  time_zone: row.timeZone,
  profile_image_url: row.profileImageUrl,
  active: row.active,
  organization_role: row.organizationRole,
});

export const fullName = (p: { firstName: string; lastName: string }) => `${p.firstName} ${p.lastName}`.trim();
