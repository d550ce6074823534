import { createNeedsPassword, createTeamMembers } from '../../domain/team-members/create.ts';
import { listTeamMemberPage, listTeamMembers } from '../../domain/team-members/list.ts';
import { createManyInput, createManyOutput, listInput, listOutput, listPageInput, listPageOutput, updateInput, updateOutput } from '../../domain/team-members/schemas.ts';
import { currentPassword } from '../../domain/accounts/passwords.ts';
import { updateNeedsPassword, updateTeamMember } from '../../domain/team-members/update.ts';
import { router, workspaceProcedure } from '../init.ts';
import { requirePassword } from '../step-up.ts';

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
  /** Adds up to 1,000 members in one transaction (Owner or Admin): all or none; an Owner or Admin among them from a session takes the password. */
  create: workspaceProcedure
    .input(createManyInput)
    .output(createManyOutput)
    .mutation(async ({ ctx, input }) => {
      if (createNeedsPassword(ctx.scope, input)) await requirePassword(ctx, input.current_password, 'add an Owner or Admin');
      return createTeamMembers(ctx.scope, input);
    }),
  /**
   * Endpoint 18. From a session, a new e-mail address or a role of Owner or Admin also takes the
   * changer's password (`requirePassword`); REST callers hold a key and are never asked.
   */
  update: workspaceProcedure
    .input(updateInput.extend({ current_password: currentPassword }))
    .output(updateOutput)
    .mutation(async ({ ctx, input }) => {
      if (updateNeedsPassword(ctx.scope, input)) await requirePassword(ctx, input.current_password, "change a member's e-mail address or make them an Owner or Admin");
      return updateTeamMember(ctx.scope, input);
    }),
});
