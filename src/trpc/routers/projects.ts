import { addProjectUser, listProjectUsers } from '../../domain/projects/project-users.ts';
import { createProject, getProject, listProjects, updateProject } from '../../domain/projects/projects.ts';
import {
  addProjectUserInput,
  addProjectUserOutput,
  createProjectInput,
  createProjectOutput,
  getProjectOutput,
  listProjectsInput,
  listProjectsOutput,
  listProjectUsersOutput,
  projectIdInput,
  updateProjectInput,
  updateProjectOutput,
  updateStatusInput,
  updateStatusOutput,
} from '../../domain/projects/schemas.ts';
import { updateProjectStatus } from '../../domain/projects/status.ts';
import { actingUserProcedure, router, workspaceProcedure } from '../init.ts';

export const projectsRouter = router({
  /** Endpoint 11. */
  create: actingUserProcedure
    .input(createProjectInput)
    .output(createProjectOutput)
    .mutation(({ ctx, input }) => ({
      notice_code: 'project_created' as const,
      project: createProject(ctx.handle, ctx.actor, input.project, ctx.clock()),
    })),
  /** Endpoint 10. */
  update: actingUserProcedure
    .input(updateProjectInput)
    .output(updateProjectOutput)
    .mutation(({ ctx, input }) => ({
      notice_code: 'project_updated' as const,
      project: updateProject(ctx.handle, ctx.actor, input.project_id, input.project, ctx.clock()),
    })),
  /** Endpoint 12. */
  updateStatus: actingUserProcedure
    .input(updateStatusInput)
    .output(updateStatusOutput)
    .mutation(({ ctx, input }) => updateProjectStatus(ctx.handle, ctx.actor, input, ctx.clock())),
  /** Endpoints 4 (v2, 201) and 5 (v1, 200). */
  addUser: actingUserProcedure
    .input(addProjectUserInput)
    .output(addProjectUserOutput)
    .mutation(({ ctx, input }) => ({
      notice_code: 'project_user_added' as const,
      project_user: addProjectUser(ctx.handle, ctx.actor, input, ctx.clock()),
    })),
  /** Endpoint 6. */
  listUsers: workspaceProcedure
    .input(projectIdInput)
    .output(listProjectUsersOutput)
    .query(({ ctx, input }) => ({ project_users: listProjectUsers(ctx.handle, input.project_id) })),
  /** For TypeScript clients: the project with its tasks, checklist items and users. */
  get: workspaceProcedure
    .input(projectIdInput)
    .output(getProjectOutput)
    .query(({ ctx, input }) => getProject(ctx.handle, input.project_id)),
  /** For TypeScript clients: keyset pagination, by client, status and `updated_since`. */
  list: workspaceProcedure
    .input(listProjectsInput)
    .output(listProjectsOutput)
    .query(({ ctx, input }) => listProjects(ctx.handle, input)),
});
