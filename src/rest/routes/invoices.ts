import { defineRoutes } from '../types.ts';

export const invoicesRoutes = defineRoutes([
  {
    endpoint: 1,
    operationId: 'createInvoiceV2',
    summary: 'Generate an invoice for a client',
    tag: 'Invoices',
    method: 'POST',
    version: 'v2',
    path: '/clients/{client_id}/invoices',
    status: 201,
    procedure: 'invoices.create',
  },
]);
