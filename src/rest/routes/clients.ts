import { defineRoutes } from '../types.ts';

export const clientsRoutes = defineRoutes([]);
