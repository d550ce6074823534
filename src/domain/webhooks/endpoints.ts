import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type * as z from 'zod';
import { webhookEndpoints } from '../../db/schema/index.ts';
import { requireAdmin } from '../access.ts';
import type { Scope } from '../scope.ts';
import { queueUnreadEvents } from './fanout.ts';
import { getEndpointRow, lastEventRowid, startFanoutHereIfIdle } from './queries.ts';
import { toEndpointRecord, type EndpointRow } from './records.ts';
import type { createInput, deleteOutput, endpointIdInput, endpointOutput, listOutput, rotateInput, updateInput, withSecretOutput } from './schemas.ts';
import { newSigningSecret } from './secret.ts';

const manage = 'manage webhook endpoints';

/** 403 unless the call may manage endpoints: checked before a session is asked for its password (src/trpc/step-up.ts). */
export const assertMayManageEndpoints = (scope: Scope): void => requireAdmin(scope, manage);

/** Whether an update points the endpoint at another URL: a new receiver of the workspace's events (404 first). */
export const movesEndpoint = (scope: Scope, input: z.output<typeof updateInput>): boolean =>
  input.url !== undefined && input.url !== getEndpointRow(scope.db, input.endpoint_id).url;

/** Adds an endpoint; its signing secret is answered here once and stored so it can sign (docs/webhooks.md). */
export function createEndpoint(scope: Scope, input: z.output<typeof createInput>): z.output<typeof withSecretOutput> {
  requireAdmin(scope, manage);
  return scope.write((tx) => {
    const at = scope.now.toISOString();
    const last = lastEventRowid(scope);
    const secret = newSigningSecret();
    const row: EndpointRow = {
      id: randomUUID(),
      url: input.url,
      description: input.description ?? '',
      eventTypes: JSON.stringify(input.events),
      secret: scope.secrets.seal(secret, scope.workspace.id),
      enabled: input.enabled,
      disabledReason: null,
      failingSince: null,
      enabledAfterEvent: last,
      createdAt: at,
      updatedAt: at,
    };
    tx.insert(webhookEndpoints).values(row).run();
    if (row.enabled) startFanoutHereIfIdle(scope, row.id, last);
    return { endpoint: toEndpointRecord(row), secret };
  });
}

/**
 * Changes the given fields. Turning an endpoint on clears why it was turned off and its failure
 * run; it receives the events committed from then on (not those of the time it was off), and its
 * deliveries that were waiting go out. Turning it off first queues for it the events committed
 * while it was on that the fan-out has not reached (`queueUnreadEvents`); so does changing the
 * events of one that is on, whose new events apply from then on.
 */
export function updateEndpoint(scope: Scope, input: z.output<typeof updateInput>): z.output<typeof endpointOutput> {
  requireAdmin(scope, manage);
  return scope.write((tx) => {
    const current = getEndpointRow(tx, input.endpoint_id);
    const next: EndpointRow = {
      ...current,
      url: input.url ?? current.url,
      eventTypes: input.events ? JSON.stringify(input.events) : current.eventTypes,
      description: input.description ?? current.description,
      enabled: input.enabled ?? current.enabled,
    };
    if (next.enabled && !current.enabled) {
      const last = lastEventRowid(scope);
      next.disabledReason = null;
      next.failingSince = null;
      next.enabledAfterEvent = last;
      startFanoutHereIfIdle(scope, current.id, last);
      // Its waiting deliveries were left out of the job's schedule while it was off.
      scope.after('webhooks');
    }
    if (!next.enabled && current.enabled) queueUnreadEvents(scope, current);
    if (next.enabled && current.enabled && next.eventTypes !== current.eventTypes) {
      // Events committed before the change go out under the types chosen then; the new types
      // apply from the next event on.
      if (queueUnreadEvents(scope, current) > 0) scope.after('webhooks');
      next.enabledAfterEvent = lastEventRowid(scope);
    }
    if (JSON.stringify(next) === JSON.stringify(current)) return { endpoint: toEndpointRecord(current) };
    next.updatedAt = scope.now.toISOString();
    tx.update(webhookEndpoints).set(next).where(eq(webhookEndpoints.id, current.id)).run();
    return { endpoint: toEndpointRecord(next) };
  });
}

/** A new signing secret, answered once; the old one stops signing at once. */
export function rotateEndpointSecret(scope: Scope, input: z.output<typeof rotateInput>): z.output<typeof withSecretOutput> {
  requireAdmin(scope, manage);
  return scope.write((tx) => {
    const current = getEndpointRow(tx, input.endpoint_id);
    const secret = newSigningSecret();
    const next = { ...current, secret: scope.secrets.seal(secret, scope.workspace.id), updatedAt: scope.now.toISOString() };
    tx.update(webhookEndpoints).set(next).where(eq(webhookEndpoints.id, current.id)).run();
    return { endpoint: toEndpointRecord(next), secret };
  });
}

/** Removes the endpoint with its deliveries and their attempts. */
export function deleteEndpoint(scope: Scope, input: z.output<typeof endpointIdInput>): z.output<typeof deleteOutput> {
  requireAdmin(scope, manage);
  return scope.write((tx) => {
    const current = getEndpointRow(tx, input.endpoint_id);
    tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, current.id)).run();
    return { endpoint_id: current.id, deleted: true as const };
  });
}

export function listEndpoints(scope: Scope): z.output<typeof listOutput> {
  requireAdmin(scope, 'see webhook endpoints');
  const rows = scope.db.select().from(webhookEndpoints).orderBy(webhookEndpoints.createdAt, webhookEndpoints.id).all();
  return { items: rows.map(toEndpointRecord) };
}
