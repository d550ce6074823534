import { defineRoutes } from '../types.ts';

export const timeEntriesRoutes = defineRoutes([]);
