import { defineRoutes } from '../types.ts';

export const projectsRoutes = defineRoutes([]);
