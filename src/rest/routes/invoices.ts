import { defineRoutes } from '../types.ts';

export const invoicesRoutes = defineRoutes([]);
