import { router } from '../init.ts';

export const timeEntriesRouter = router({});
