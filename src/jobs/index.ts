import type { Job } from './runner.ts';

/** Every background job of the product; `hourbook serve` runs them all. */
export const jobs: Job[] = [];
