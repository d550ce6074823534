import { createTeamMembers } from '../../domain/team-members/create.ts';
import { listTeamMemberPage, listTeamMembers } from '../../domain/team-members/list.ts';
import { createManyInput, createManyOutput, listInput, listOutput, listPageInput, listPageOutput, updateInput, updateOutput } from '../../domain/team-members/schemas.ts';
import { updateTeamMember } from '../../domain/team-members/update.ts';
import { router, workspaceProcedure } from '../init.ts';

export const teamMembersRouter = router({
  /** Endpoints 16 and 17: page-number pagination. */
  listPage: workspaceProcedure
    .input(listPageInput)
    .output(listPageOutput)
    .query(({ ctx, input }) => listTeamMemberPage(ctx.scope, input)),
  /** For TypeScript clients: keyset pagination and `updated_since`. */
  list: workspaceProcedure
    .input(listInput)
    .output(listOutput)
    .query(({ ctx, input }) => listTeamMembers(ctx.scope, input)),
  /** Adds up to 1,000 members in one transaction (Owner or Admin): all or none. */
  create: workspaceProcedure
    .input(createManyInput)
    .output(createManyOutput)
    .mutation(({ ctx, input }) => createTeamMembers(ctx.scope, input)),
  /** Endpoint 18. */
  update: workspaceProcedure
    .input(updateInput)
    .output(updateOutput)
    .mutation(({ ctx, input }) => updateTeamMember(ctx.scope, input)),
});
