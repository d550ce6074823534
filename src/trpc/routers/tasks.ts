import { listTasksInput, listTasksOutput } from '../../domain/projects/schemas.ts';
import { listTasks } from '../../domain/projects/tasks.ts';
import { router, workspaceProcedure } from '../init.ts';

export const tasksRouter = router({
  /** A project's tasks with their checklist items (their ids are what time entries name). */
  list: workspaceProcedure
    .input(listTasksInput)
    .output(listTasksOutput)
    .query(({ ctx, input }) => listTasks(ctx.handle, input)),
});
