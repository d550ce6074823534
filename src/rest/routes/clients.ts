import { defineRoutes } from '../types.ts';

export const clientsRoutes = defineRoutes([
  {
    endpoint: 13,
    operationId: 'getClientV1',
    summary: 'Read a client with its recipients',
    tag: 'Clients',
    method: 'GET',
    version: 'v1',
    path: '/clients/{client_id}',
    status: 200,
    procedure: 'clients.get',
  },
  {
    endpoint: 14,
    operationId: 'updateClientV1',
    summary: 'Update a client',
    tag: 'Clients',
    method: 'PUT',
    version: 'v1',
    path: '/clients/{client_id}',
    status: 200,
    procedure: 'clients.update',
  },
  {
    endpoint: 15,
    operationId: 'updateClientStatusV1',
    summary: 'Archive or reactivate clients',
    tag: 'Clients',
    method: 'POST',
    version: 'v1',
    path: '/clients/update_status',
    status: 204,
    procedure: 'clients.updateStatus',
  },
]);
