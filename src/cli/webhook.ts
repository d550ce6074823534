import { listDeliveries, listEvents, redeliverEvent } from '../domain/webhooks/deliveries.ts';
import { createEndpoint, deleteEndpoint, listEndpoints, rotateEndpointSecret, updateEndpoint } from '../domain/webhooks/endpoints.ts';
import { createInput, deliveriesInput, eventsInput, type DeliveryRecord, type EndpointRecord } from '../domain/webhooks/schemas.ts';
import { check, parse, required, requiredId } from './args.ts';
import { asUsage, openWorkspace, print, scopeOf, type Command } from './context.ts';

/** Webhook endpoints from the command line; the command acts for the workspace (like its API key). */

const describeEndpoint = (e: EndpointRecord) =>
  `${e.id}  ${e.enabled ? 'on ' : 'off'}  ${e.url}  [${e.events.join(', ')}]${e.description ? `  ${e.description}` : ''}${e.disabled_reason ? `\n    turned off: ${e.disabled_reason}` : ''}`;

const describeDelivery = (d: DeliveryRecord) => {
  const head = `${d.id}  ${d.status.padEnd(9)} ${d.event_type} (${d.event_id})  attempts ${d.attempts}${d.next_attempt_at ? `, next ${d.next_attempt_at}` : ''}${d.manual ? ', by hand' : ''}`;
  const tries = d.attempt_log.map((a) => `    ${a.attempted_at}  ${a.status_code ?? '---'}  ${a.duration_ms} ms  ${a.error ?? ''}${a.response_body ? `  ${JSON.stringify(a.response_body.slice(0, 80))}` : ''}`);
  return [head, ...tries].join('\n');
};

export const add: Command = (argv, services, io) => {
  const { values, positionals } = parse(argv, { url: { type: 'string' }, events: { type: 'string' }, description: { type: 'string' }, disabled: { type: 'boolean' } });
  const handle = openWorkspace(services, positionals[0]);
  const input = check('webhook', createInput, {
    url: required('--url', values.url),
    events: values.events === undefined ? undefined : values.events.split(',').map((s) => s.trim()).filter(Boolean),
    description: values.description,
    enabled: !values.disabled,
  });
  const { endpoint, secret } = asUsage(() => createEndpoint(scopeOf(services, handle), input));
  print(io, values.json, { endpoint, secret }, `${describeEndpoint(endpoint)}\nsigning secret (shown once): ${secret}`);
};

export const list: Command = (argv, services, io) => {
  const { values, positionals } = parse(argv, {});
  const handle = openWorkspace(services, positionals[0]);
  const { items } = listEndpoints(scopeOf(services, handle));
  print(io, values.json, { endpoints: items }, items.length ? items.map(describeEndpoint).join('\n') : 'no webhook endpoints');
};

export const remove: Command = (argv, services, io) => {
  const { values, positionals } = parse(argv, {});
  const handle = openWorkspace(services, positionals[0]);
  const endpointId = requiredId('<endpoint-id>', positionals[1]);
  const result = asUsage(() => deleteEndpoint(scopeOf(services, handle), { endpoint_id: endpointId }));
  print(io, values.json, result, `removed webhook endpoint ${endpointId}`);
};

const switchTo =
  (enabled: boolean): Command =>
  (argv, services, io) => {
    const { values, positionals } = parse(argv, {});
    const handle = openWorkspace(services, positionals[0]);
    const endpointId = requiredId('<endpoint-id>', positionals[1]);
    const { endpoint } = asUsage(() => updateEndpoint(scopeOf(services, handle), { endpoint_id: endpointId, enabled }));
    print(io, values.json, { endpoint }, describeEndpoint(endpoint));
  };
export const enable = switchTo(true);
export const disable = switchTo(false);

export const rotateSecret: Command = (argv, services, io) => {
  const { values, positionals } = parse(argv, {});
  const handle = openWorkspace(services, positionals[0]);
  const endpointId = requiredId('<endpoint-id>', positionals[1]);
  const { endpoint, secret } = asUsage(() => rotateEndpointSecret(scopeOf(services, handle), { endpoint_id: endpointId }));
  print(io, values.json, { endpoint, secret }, `${describeEndpoint(endpoint)}\nnew signing secret (shown once): ${secret}`);
};

export const deliveries: Command = (argv, services, io) => {
  const { values, positionals } = parse(argv, { event: { type: 'string' }, status: { type: 'string' }, limit: { type: 'string' }, cursor: { type: 'string' } });
  const handle = openWorkspace(services, positionals[0]);
  const input = check('deliveries', deliveriesInput, {
    endpoint_id: requiredId('<endpoint-id>', positionals[1]),
    event_id: values.event,
    status: values.status,
    limit: values.limit === undefined ? undefined : Number(values.limit),
    cursor: values.cursor,
  });
  const page = asUsage(() => listDeliveries(scopeOf(services, handle), input));
  const more = page.next_cursor ? `\nmore: --cursor ${page.next_cursor}` : '';
  print(io, values.json, { deliveries: page.items, next_cursor: page.next_cursor }, (page.items.length ? page.items.map(describeDelivery).join('\n') : 'no deliveries') + more);
};

export const redeliver: Command = (argv, services, io) => {
  const { values, positionals } = parse(argv, {});
  const handle = openWorkspace(services, positionals[0]);
  const input = { endpoint_id: requiredId('<endpoint-id>', positionals[1]), event_id: requiredId('<event-id>', positionals[2]) };
  const { delivery } = asUsage(() => redeliverEvent(scopeOf(services, handle), input));
  print(io, values.json, { delivery }, `queued ${delivery.event_type} (${delivery.event_id}) again as delivery ${delivery.id}; a server serving this data directory sends it at once`);
};

export const events: Command = (argv, services, io) => {
  const { values, positionals } = parse(argv, { type: { type: 'string' }, limit: { type: 'string' }, cursor: { type: 'string' } });
  const handle = openWorkspace(services, positionals[0]);
  const input = check('events', eventsInput, { type: values.type, limit: values.limit === undefined ? undefined : Number(values.limit), cursor: values.cursor });
  const page = asUsage(() => listEvents(scopeOf(services, handle), input));
  const more = page.next_cursor ? `\nmore: --cursor ${page.next_cursor}` : '';
  print(io, values.json, { events: page.items, next_cursor: page.next_cursor }, (page.items.map((e) => `${e.id}  ${e.created_at}  ${e.type}`).join('\n') || 'no events') + more);
};
