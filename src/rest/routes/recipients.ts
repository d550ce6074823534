import type * as z from 'zod';
import { createdBody, updatedBody, type createOutput, type updateOutput } from '../../domain/recipients/schemas.ts';
import { defineRoutes } from '../types.ts';

/** The spec's body for create and update is the notice alone; the record stays a tRPC extra. */
const noticeOnly = (output: z.infer<typeof createOutput> | z.infer<typeof updateOutput>) => ({ notice_code: output.notice_code });

export const recipientsRoutes = defineRoutes([
  {
    endpoint: 7,
    operationId: 'createRecipientV2',
    summary: 'Add a recipient to a client',
    tag: 'Recipients',
    method: 'POST',
    version: 'v2',
    path: '/clients/{client_id}/recipients',
    status: 201,
    procedure: 'recipients.create',
    toBody: noticeOnly,
    responseBody: createdBody,
  },
  {
    endpoint: 8,
    operationId: 'updateRecipientV1',
    summary: 'Update a recipient',
    tag: 'Recipients',
    method: 'PUT',
    version: 'v1',
    path: '/clients/{client_id}/recipients/{recipient_id}',
    status: 200,
    procedure: 'recipients.update',
    toBody: noticeOnly,
    responseBody: updatedBody,
  },
  {
    endpoint: 9,
    operationId: 'deleteRecipientV1',
    summary: 'Delete a recipient',
    tag: 'Recipients',
    method: 'DELETE',
    version: 'v1',
    path: '/clients/{client_id}/recipients/{recipient_id}',
    status: 200,
    procedure: 'recipients.delete',
  },
]);
