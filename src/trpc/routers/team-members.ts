import {
  listInput,
  listOutput,
  listPageInput,
  listPageOutput,
  updateInput,
  updateOutput,
} from '../../domain/team-members/schemas.ts';
import { listTeamMemberPage, listTeamMembers, updateTeamMember } from '../../domain/team-members/members.ts';
import { router, workspaceProcedure } from '../init.ts';

export const teamMembersRouter = router({
  /** Endpoints 16 and 17: page-number pagination. */
  listPage: workspaceProcedure
    .input(listPageInput)
    .output(listPageOutput)
    .query(({ ctx, input }) => listTeamMemberPage((b) => ctx.handle.memo(b), input)),
  /** For TypeScript clients: keyset pagination and `updated_since`. */
  list: workspaceProcedure
    .input(listInput)
    .output(listOutput)
    .query(({ ctx, input }) => listTeamMembers(ctx.db, input)),
  /** Endpoint 18. */
  update: workspaceProcedure
    .input(updateInput)
    .output(updateOutput)
    .mutation(({ ctx, input }) => ({ team_member: updateTeamMember(ctx.db, input, ctx.clock()) })),
});
