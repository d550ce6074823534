import * as z from 'zod';
import { cursorInput } from '../pagination.ts';
import { dateTime, dateTimeOut, email, emailOut, idIn, idOut, nonEmptyText } from '../fields.ts';

/** The spec's Recipient record. `creator_id` is null only for recipients made outside a request. */
export const recipientRecord = z.object({
  id: idOut,
  creator_id: idOut.nullable(),
  client_id: idOut,
  name: z.string(),
  email: emailOut,
  deleted: z.boolean(),
  created_at: dateTimeOut,
  updated_at: dateTimeOut,
});
export type RecipientRecord = z.infer<typeof recipientRecord>;

const name = nonEmptyText(200);

/** On create both fields are required: invoices greet the recipient by name. */
const newRecipient = z.object({ name, email }, { message: 'must be an object with name and email' });

/** On update each field is optional; keys not listed are ignored. */
const recipientChanges = z.object(
  { name: name.optional(), email: email.optional() },
  { message: 'must be an object with name and/or email' },
);

/** Endpoint 7; the acting user's `email` is the procedure's own input. */
export const createInput = z.object({ client_id: idIn(), recipient: newRecipient });
export const createOutput = z.object({ notice_code: z.literal('recipient_created'), recipient: recipientRecord });

/** The REST bodies of endpoints 7 and 8: the notice alone, as the spec shows them. */
export const createdBody = z.object({ notice_code: z.literal('recipient_created') });
export const updatedBody = z.object({ notice_code: z.literal('recipient_updated') });

const recipientRef = { client_id: idIn(), recipient_id: idIn() };

export const updateInput = z.object({ ...recipientRef, recipient: recipientChanges });
export const updateOutput = z.object({ notice_code: z.literal('recipient_updated'), recipient: recipientRecord });

export const deleteInput = z.object(recipientRef);
export const deleteOutput = z.object({ notice_code: z.literal('recipient_deleted'), recipient: recipientRecord });

export const listInput = z.object({
  ...cursorInput,
  client_id: idIn(),
  updated_since: dateTime.optional(),
  /** With `updated_since`, lets a synchronising client learn about deletions too. */
  include_deleted: z.boolean().default(false),
});
export const listOutput = z.object({ items: z.array(recipientRecord), next_cursor: z.string().nullable() });
