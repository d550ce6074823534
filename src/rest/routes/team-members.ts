import * as z from 'zod';
import { updateInput } from '../../domain/team-members/schemas.ts';
import { defineRoutes } from '../types.ts';

/** Query strings are strings: parsed here, checked (range, address) by the procedure's schema. */
const pageQuery = z.object({ email: z.string().optional(), page_number: z.string().optional(), page_size: z.string().optional() });

export const teamMemberRoutes = defineRoutes([
  {
    endpoint: 16,
    operationId: 'listTeamMembersV2',
    summary: 'List team members',
    tag: 'Team members',
    method: 'GET',
    version: 'v2',
    path: '/team-members',
    status: 200,
    procedure: 'teamMembers.listPage',
    query: pageQuery,
    requireJsonAccept: true,
  },
  {
    endpoint: 17,
    operationId: 'listTeamMembersV1',
    summary: 'List team members',
    tag: 'Team members',
    method: 'GET',
    version: 'v1',
    path: '/team_members',
    status: 200,
    procedure: 'teamMembers.listPage',
    query: pageQuery,
    requireJsonAccept: true,
  },
  {
    endpoint: 18,
    operationId: 'updateTeamMemberV1',
    summary: 'Update a team member',
    tag: 'Team members',
    method: 'PATCH',
    version: 'v1',
    path: '/team_members/{team_member_id}',
    status: 200,
    procedure: 'teamMembers.update',
    // The contract's body: the procedure's `current_password` is for signed-in browsers only.
    body: updateInput.omit({ team_member_id: true }),
    requireJsonAccept: true,
  },
]);
