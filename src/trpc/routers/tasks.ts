import { listTasks } from '../../domain/projects/list-tasks.ts';
import { listTasksInput, listTasksOutput } from '../../domain/projects/schemas.ts';
import { router, workspaceProcedure } from '../init.ts';

export const tasksRouter = router({
  /** A project's tasks with their checklist items (their ids are what time entries name). */
  list: workspaceProcedure
    .input(listTasksInput)
    .output(listTasksOutput)
    .query(({ ctx, input }) => listTasks(ctx.scope, input)),
});
