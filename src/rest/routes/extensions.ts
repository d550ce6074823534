import type * as z from 'zod';
import { addedBody, type addOutput } from '../../domain/clients/schemas.ts';
import type { ExtensionRoute } from '../types.ts';

/**
 * Operations the vendor's public documentation shows beyond the spec's 18 ("operations other than
 * those listed: not shown"), which integrators written against that documentation call. Each runs a
 * procedure exactly like the spec's rows do; v1 answers 200, v2 201 on creation and 200 otherwise.
 */
export const extensionRoutes: ExtensionRoute[] = [
  {
    extension: true,
    operationId: 'createClientV1',
    summary: 'Create a client',
    method: 'POST',
    version: 'v1',
    path: '/clients',
    status: 200,
    procedure: 'clients.add',
    // The vendor answers the notice and the new id, as its client update does.
    toBody: (output: z.infer<typeof addOutput>) => ({ notice_code: output.notice_code, client_id: output.client_id }),
    responseBody: addedBody,
  },
  {
    extension: true,
    operationId: 'updateClientV2',
    summary: 'Update a client (the v2 spelling of PUT v1 /clients/{client_id})',
    method: 'PATCH',
    version: 'v2',
    path: '/clients/{client_id}',
    status: 200,
    procedure: 'clients.update',
  },
  {
    extension: true,
    operationId: 'getProjectV1',
    summary: 'Read a project with its tasks and project users',
    method: 'GET',
    version: 'v1',
    path: '/projects/{project_id}',
    status: 200,
    procedure: 'projects.get',
  },
  {
    extension: true,
    operationId: 'updateProjectUserV1',
    summary: "Change a project user's role, rate or approval type",
    method: 'PATCH',
    version: 'v1',
    path: '/projects/{project_id}/project_users/{project_user_id}',
    status: 200,
    procedure: 'projects.updateUser',
  },
  {
    extension: true,
    operationId: 'updateProjectUserV2',
    summary: "Change a project user's role, rate or approval type",
    method: 'PATCH',
    version: 'v2',
    path: '/projects/{project_id}/project-users/{project_user_id}',
    status: 200,
    procedure: 'projects.updateUser',
  },
  {
    extension: true,
    operationId: 'createInvoiceV1',
    summary: 'Generate an invoice for a client (the v1 twin of endpoint 1)',
    method: 'POST',
    version: 'v1',
    path: '/clients/{client_id}/invoices',
    status: 200,
    procedure: 'invoices.create',
  },
];
