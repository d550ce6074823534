import { router } from '../init.ts';

export const clientsRouter = router({});
