import { addProjectUser } from '../../domain/projects/add-user.ts';
import { createProject } from '../../domain/projects/create.ts';
import { getProject } from '../../domain/projects/get.ts';
import { removeProjectUser, removeProjectUserInput, removeProjectUserOutput } from '../../domain/projects/remove-user.ts';
import { listProjects } from '../../domain/projects/list.ts';
import { listProjectUsers } from '../../domain/projects/list-users.ts';
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
  updateProjectUserInput,
  updateProjectUserOutput,
  updateStatusInput,
  updateStatusOutput,
} from '../../domain/projects/schemas.ts';
import { updateProject } from '../../domain/projects/update.ts';
import { updateProjectStatus } from '../../domain/projects/update-status.ts';
import { updateProjectUser } from '../../domain/projects/update-user.ts';
import { actingUserProcedure, router, workspaceProcedure } from '../init.ts';

export const projectsRouter = router({
  /** Endpoint 11. */
  create: actingUserProcedure
    .input(createProjectInput)
    .output(createProjectOutput)
    .mutation(({ ctx, input }) => createProject(ctx.scope, input)),
  /** Endpoint 10. */
  update: actingUserProcedure
    .input(updateProjectInput)
    .output(updateProjectOutput)
    .mutation(({ ctx, input }) => updateProject(ctx.scope, input)),
  /** Endpoint 12. */
  updateStatus: actingUserProcedure
    .input(updateStatusInput)
    .output(updateStatusOutput)
    .mutation(({ ctx, input }) => updateProjectStatus(ctx.scope, input)),
  /** Endpoints 4 (v2, 201) and 5 (v1, 200). */
  addUser: actingUserProcedure
    .input(addProjectUserInput)
    .output(addProjectUserOutput)
    .mutation(({ ctx, input }) => addProjectUser(ctx.scope, input)),
  /** The vendor's PATCH .../project_users/{id} (v1) and .../project-users/{id} (v2). */
  updateUser: actingUserProcedure
    .input(updateProjectUserInput)
    .output(updateProjectUserOutput)
    .mutation(({ ctx, input }) => updateProjectUser(ctx.scope, input)),
  /** Takes a member off the project; their recorded time stays. */
  removeUser: workspaceProcedure
    .input(removeProjectUserInput)
    .output(removeProjectUserOutput)
    .mutation(({ ctx, input }) => removeProjectUser(ctx.scope, input)),
  /** Endpoint 6. */
  listUsers: workspaceProcedure
    .input(projectIdInput)
    .output(listProjectUsersOutput)
    .query(({ ctx, input }) => listProjectUsers(ctx.scope, input)),
  /** The vendor's GET v1 /projects/{id}, and for TypeScript clients: the project with its tasks, checklist items and users. */
  get: workspaceProcedure
    .input(projectIdInput)
    .output(getProjectOutput)
    .query(({ ctx, input }) => getProject(ctx.scope, input)),
  /** For TypeScript clients: keyset pagination, by client, status and `updated_since`. */
  list: workspaceProcedure
    .input(listProjectsInput)
    .output(listProjectsOutput)
    .query(({ ctx, input }) => listProjects(ctx.scope, input)),
});
