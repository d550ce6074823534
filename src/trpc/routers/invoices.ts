import { router } from '../init.ts';

export const invoicesRouter = router({});
