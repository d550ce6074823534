import { defineRoutes } from '../types.ts';

/** Endpoints 2 and 3: one procedure, the same body and response; only the status differs. */
export const timeEntriesRoutes = defineRoutes([
  {
    endpoint: 2,
    operationId: 'createTimeEntryV2',
    summary: 'Create a time entry',
    tag: 'Time entries',
    method: 'POST',
    version: 'v2',
    path: '/time-entries',
    status: 201,
    procedure: 'timeEntries.create',
  },
  {
    endpoint: 3,
    operationId: 'createTimeEntryV1',
    summary: 'Create a time entry',
    tag: 'Time entries',
    method: 'POST',
    version: 'v1',
    path: '/time_entry',
    status: 200,
    procedure: 'timeEntries.create',
  },
]);
