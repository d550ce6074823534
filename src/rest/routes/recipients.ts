import { defineRoutes } from '../types.ts';

export const recipientsRoutes = defineRoutes([]);
