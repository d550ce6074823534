import * as z from 'zod';
import { webhookDeliveryStatuses } from '../../db/schema/webhooks.ts';
import { currentPassword } from '../accounts/passwords.ts';
import { EVENT_TYPES } from '../events.ts';
import { dateTimeOut, idIn, idOut, nonEmptyText } from '../fields.ts';
import { cursorInput } from '../pagination.ts';

/** Every event, now and as new types are added. */
export const ALL_EVENTS = '*';

/** An http(s) address without credentials (they would show in every listing); checked for reachability at delivery. */
const endpointUrl = z
  .string({ message: 'must be an http or https URL' })
  .trim()
  .max(2000, 'must be at most 2000 characters')
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '' && url.username === '' && url.password === '';
    } catch {
      return false;
    }
  }, 'must be an http or https URL without user name or password');

/** The events an endpoint wants: `["*"]` (every event, also types added later) or a list of types. */
const eventSelection = z
  .array(z.union([z.literal(ALL_EVENTS), z.enum(EVENT_TYPES)], { message: `must be "*" or one of ${EVENT_TYPES.join(', ')}` }), { message: 'must be an array of event types' })
  .min(1, 'must name at least one event type, or "*"')
  .transform((types) => (types.includes(ALL_EVENTS) ? [ALL_EVENTS] : [...new Set(types)].sort()));

const description = z.string({ message: 'must be text' }).trim().max(500, 'must be at most 500 characters');
const endpointId = idIn();

export const endpointRecord = z.object({
  id: idOut,
  url: z.string(),
  description: z.string(),
  events: z.array(z.string()),
  enabled: z.boolean(),
  /** Set when hourbook turned the endpoint off (it failed for 3 days). */
  disabled_reason: z.string().nullable(),
  /** When the current run of failed attempts began; null after a success. */
  failing_since: dateTimeOut.nullable(),
  created_at: dateTimeOut,
  updated_at: dateTimeOut,
});
export type EndpointRecord = z.infer<typeof endpointRecord>;

export const createInput = z.object({
  url: endpointUrl,
  events: eventSelection.default([ALL_EVENTS]),
  description: description.optional(),
  enabled: z.boolean().default(true),
  current_password: currentPassword,
});
/** The secret is shown here once; it cannot be read again (rotate it to get a new one). */
export const withSecretOutput = z.object({ endpoint: endpointRecord, secret: z.string() });

export const updateInput = z.object({
  endpoint_id: endpointId,
  url: endpointUrl.optional(),
  events: eventSelection.optional(),
  description: description.optional(),
  enabled: z.boolean({ message: 'must be true or false' }).optional(),
  current_password: currentPassword,
});
export const endpointOutput = z.object({ endpoint: endpointRecord });

export const endpointIdInput = z.object({ endpoint_id: endpointId });
export const rotateInput = endpointIdInput.extend({ current_password: currentPassword });
export const deleteOutput = z.object({ endpoint_id: idOut, deleted: z.literal(true) });

export const listOutput = z.object({ items: z.array(endpointRecord) });

export const attemptRecord = z.object({
  attempted_at: dateTimeOut,
  /** The receiver's HTTP status; null when no answer came. */
  status_code: z.number().int().nullable(),
  error: z.string().nullable(),
  /** The first 1 KB of the receiver's answer. */
  response_body: z.string().nullable(),
  duration_ms: z.number().int(),
});

export const deliveryRecord = z.object({
  id: idOut,
  endpoint_id: idOut,
  event_id: z.string(),
  event_type: z.string(),
  status: z.enum(webhookDeliveryStatuses),
  attempts: z.number().int(),
  /** When the next attempt is due; null once delivered or failed. */
  next_attempt_at: dateTimeOut.nullable(),
  delivered_at: dateTimeOut.nullable(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  /** Asked for by hand (`redeliver`). */
  manual: z.boolean(),
  created_at: dateTimeOut,
  attempt_log: z.array(attemptRecord),
});
export type DeliveryRecord = z.infer<typeof deliveryRecord>;

export const deliveriesInput = z.object({
  ...cursorInput,
  endpoint_id: endpointId,
  event_id: idIn().optional(),
  status: z.enum(webhookDeliveryStatuses).optional(),
});
export const deliveriesOutput = z.object({ items: z.array(deliveryRecord), next_cursor: z.string().nullable() });

export const redeliverInput = z.object({ endpoint_id: endpointId, event_id: nonEmptyText(100) });
export const redeliverOutput = z.object({ delivery: deliveryRecord });

export const eventsInput = z.object({ ...cursorInput, type: z.enum(EVENT_TYPES).optional() });
export const eventRecord = z.object({ id: z.string(), type: z.string(), created_at: dateTimeOut, data: z.record(z.string(), z.unknown()) });
export const eventsOutput = z.object({ items: z.array(eventRecord), next_cursor: z.string().nullable() });

/** `webhooks.overview`: every endpoint with its latest deliveries, and the event types one may choose. */
export const overviewInput = z
  .object({ recent: z.number().int('must be a whole number').min(1, 'must be at least 1').max(50, 'must be at most 50').default(10) })
  .prefault({});
export const overviewOutput = z.object({
  /** What `events` may name besides "*". */
  event_types: z.array(z.enum(EVENT_TYPES)),
  items: z.array(
    z.object({
      endpoint: endpointRecord,
      /** How many of its deliveries are in each state (finished ones are kept 30 days). */
      delivery_counts: z.object({ pending: z.number().int(), delivered: z.number().int(), failed: z.number().int() }),
      /** Its latest deliveries, newest first, each with its latest attempt (`webhooks.deliveries` has every attempt). */
      recent_deliveries: z.array(deliveryRecord.omit({ attempt_log: true }).extend({ last_attempt: attemptRecord.nullable() })),
    }),
  ),
});
