import { router } from '../init.ts';

export const recipientsRouter = router({});
