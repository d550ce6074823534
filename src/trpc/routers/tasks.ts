import { router } from '../init.ts';

export const tasksRouter = router({});
