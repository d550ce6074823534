import { router } from '../init.ts';

export const projectsRouter = router({});
