import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api, apiError, type Outputs } from '../api.ts';
import { formatDateTime, formatNumber } from '../format.ts';
import { useMe } from '../session.tsx';
import { useWithPassword } from '../ui/confirm-password.tsx';
import { Badge } from '../ui/badge.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { Check, FormError, formErrors } from '../ui/field.tsx';
import { Actions, Form, TextField, SubmitButton } from '../ui/form.tsx';
import { focusWhenShown } from '../ui/hooks.ts';
import { useNotice } from '../ui/notice.tsx';
import { Table } from '../ui/table.tsx';

/** A webhook endpoint on the webhooks page: its form (add, edit), and its card with its deliveries. */

export type Overview = Outputs['webhooks']['overview'];
export type Endpoint = Overview['items'][number]['endpoint'];
type EventType = Overview['event_types'][number];
/** A secret just answered by create or rotate: shown once, then gone. */
export type Shown = { url: string; secret: string } | null;

const ALL = '*' as const;

/** Event types grouped by what they are about (`invoice.paid` → invoice), for the checkboxes. */
function grouped(types: EventType[]): [string, EventType[]][] {
  const groups = new Map<string, EventType[]>();
  for (const t of types) {
    const group = t.split('.')[0] ?? t;
    groups.set(group, [...(groups.get(group) ?? []), t]);
  }
  return [...groups];
}

/** URL, description and events of an endpoint: a new one (create) or an existing one (update). */
export function EndpointDialog({ eventTypes, endpoint, onCreated, onClose }: { eventTypes: EventType[]; endpoint?: Endpoint; onCreated?: (shown: Shown) => void; onClose: () => void }) {
  const me = useMe();
  const withPassword = useWithPassword();
  const notify = useNotice();
  const [url, setUrl] = useState(endpoint?.url ?? 'https://');
  const [description, setDescription] = useState(endpoint?.description ?? '');
  const [all, setAll] = useState(!endpoint || endpoint.events.includes(ALL));
  const [chosen, setChosen] = useState<Set<EventType>>(() => new Set(eventTypes.filter((t) => endpoint?.events.includes(t))));
  const save = useMutation({
    mutationFn: async () => {
      const fields = { email: me.member.email, url, description, events: all ? [ALL] : [...chosen] };
      return withPassword(async (current_password) =>
        endpoint
          ? { ...(await api.webhooks.update.mutate({ ...fields, endpoint_id: endpoint.id, current_password })), secret: null }
          : api.webhooks.create.mutate({ ...fields, current_password }),
      );
    },
    onSuccess: (r) => {
      notify(endpoint ? 'Endpoint saved' : `Endpoint added: it receives events from now on`);
      if (r.secret) onCreated?.({ url: r.endpoint.url, secret: r.secret });
      onClose();
    },
  });
  const errors = formErrors(save.error ? apiError(save.error) : null, ['url', 'description', 'events']);
  const toggle = (type: EventType, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(type);
    else next.delete(type);
    setChosen(next);
  };
  return (
    <Dialog title={endpoint ? 'Edit the endpoint' : 'Add an endpoint'} onClose={onClose}>
      <Form className="stack" onSubmit={() => save.mutate()}>
        <FormError message={errors.form} />
        <TextField label="URL" type="url" hint="http or https; hourbook POSTs each event to it" value={url} onChange={setUrl} error={errors.field('url')} />
        <TextField label="Description (optional)" maxLength={500} value={description} onChange={setDescription} error={errors.field('description')} />
        <fieldset>
          <legend>Events</legend>
          <div role="radiogroup" aria-label="Which events" className="stack">
            <label className="radio">
              <input type="radio" name="events" checked={all} onChange={() => setAll(true)} /> All events, also types added later
            </label>
            <label className="radio">
              <input type="radio" name="events" checked={!all} onChange={() => setAll(false)} /> Only these:
            </label>
          </div>
          {!all && (
            <div className="event-groups">
              {grouped(eventTypes).map(([group, types]) => (
                <div key={group} role="group" aria-label={group.replace('_', ' ')}>
                  {types.map((t) => (
                    <Check key={t} label={<code>{t}</code>} checked={chosen.has(t)} onChange={(on) => toggle(t, on)} />
                  ))}
                </div>
              ))}
            </div>
          )}
          <FormError message={errors.field('events')} />
        </fieldset>
        <Actions submit={endpoint ? 'Save endpoint' : 'Add endpoint'} pending={save.isPending} onCancel={onClose} />
      </Form>
    </Dialog>
  );
}


type Item = Overview['items'][number];
type Delivery = Item['recent_deliveries'][number];

/** The receiver's last answer: its HTTP status, or why there was none. */
function lastAnswer(d: Delivery): string {
  if (d.last_status_code !== null) return `HTTP ${d.last_status_code}${d.last_error && d.status !== 'delivered' ? ` — ${d.last_error}` : ''}`;
  return d.last_error ?? (d.attempts === 0 ? 'Not tried yet' : '—');
}

function Deliveries({ item, redeliver, pending }: { item: Item; redeliver: (eventId: string) => void; pending: boolean }) {
  const { endpoint, recent_deliveries: rows } = item;
  return (
    <Table
      caption={`Recent deliveries to ${endpoint.url}`}
      captionHidden
      rows={rows}
      rowKey={(d) => d.id}
      empty="Nothing delivered yet: events that happen from now on are sent here."
      columns={[
        {
          header: 'Event',
          className: 'wrap',
          cell: (d) => (
            <span className="event-cell">
              <code>{d.event_type}</code>
              <span className="small muted">
                {d.event_id}
                {d.manual ? ' · sent again by hand' : ''}
              </span>
            </span>
          ),
        },
        { header: 'Queued', cell: (d) => formatDateTime(d.created_at) },
        { header: 'Status', cell: (d) => <Badge status={d.status} /> },
        { header: 'Attempts', align: 'end', cell: (d) => formatNumber(d.attempts) },
        {
          header: 'Last answer',
          className: 'wrap',
          cell: (d) => (
            <span>
              {lastAnswer(d)}
              {d.next_attempt_at && <span className="small muted"> · next try {formatDateTime(d.next_attempt_at)}</span>}
            </span>
          ),
        },
        {
          header: <span className="visually-hidden">Actions</span>,
          label: 'Actions',
          cell: (d) =>
            endpoint.enabled ? (
              <button type="button" className="button small" disabled={pending} onClick={() => redeliver(d.event_id)}>
                Redeliver<span className="visually-hidden"> {d.event_type} {d.event_id}</span>
              </button>
            ) : null,
        },
      ]}
    />
  );
}

/** Sends any event again by its id (e.g. one of the time the endpoint was off, from `hourbook webhook events`). */
function RedeliverById({ onSend, pending, error }: { onSend: (eventId: string) => void; pending: boolean; error: unknown }) {
  const [eventId, setEventId] = useState('');
  const errors = formErrors(error ? apiError(error) : null, ['event_id']);
  return (
    <Form className="inline-form" onSubmit={() => onSend(eventId.trim())} aria-label="Redeliver an event by id">
      <TextField label="Redeliver an event by id" className="grow" placeholder="evt_…" spellCheck={false} value={eventId} onChange={setEventId} error={errors.field('event_id') ?? errors.form ?? undefined} />
      <SubmitButton className="button" pending={pending} disabled={!eventId.trim()}>
        Redeliver
      </SubmitButton>
    </Form>
  );
}

/** The card's server calls: turn on or off, rotate the secret, remove, redeliver. */
function useEndpointActions(endpoint: Endpoint, onSecret: (shown: Shown) => void) {
  const me = useMe();
  const withPassword = useWithPassword();
  const notify = useNotice();
  const toggle = useMutation({
    mutationFn: () => api.webhooks.update.mutate({ email: me.member.email, endpoint_id: endpoint.id, enabled: !endpoint.enabled }),
    onSuccess: ({ endpoint: e }) => notify(e.enabled ? 'Endpoint turned on: it receives events from now on' : 'Endpoint turned off'),
  });
  const rotate = useMutation({
    mutationFn: () => withPassword((current_password) => api.webhooks.rotateSecret.mutate({ email: me.member.email, endpoint_id: endpoint.id, current_password })),
    onSuccess: (r) => onSecret({ url: r.endpoint.url, secret: r.secret }),
  });
  const remove = useMutation({
    mutationFn: () => api.webhooks.delete.mutate({ email: me.member.email, endpoint_id: endpoint.id }),
    onSuccess: () => {
      notify('Endpoint removed');
      focusWhenShown('main');
    },
  });
  const redeliver = useMutation({
    mutationFn: (event_id: string) => api.webhooks.redeliver.mutate({ email: me.member.email, endpoint_id: endpoint.id, event_id }),
    onSuccess: ({ delivery }) => notify(`${delivery.event_type} queued again`),
  });
  return { toggle, rotate, remove, redeliver, failed: toggle.error ?? rotate.error ?? remove.error };
}

/** What the endpoint listens to, how its deliveries went, since when it fails, when it was added. */
function EndpointFacts({ item }: { item: Item }) {
  const { endpoint, delivery_counts: counts } = item;
  return (
    <dl className="facts">
      <div>
        <dt>Events</dt>
        <dd className="wrap">{endpoint.events.includes('*') ? 'All events' : endpoint.events.join(', ')}</dd>
      </div>
      <div>
        <dt>Deliveries</dt>
        <dd>
          {formatNumber(counts.delivered)} delivered · {formatNumber(counts.pending)} pending · {formatNumber(counts.failed)} failed
        </dd>
      </div>
      {endpoint.failing_since && (
        <div>
          <dt>Failing since</dt>
          <dd className="overdue">{formatDateTime(endpoint.failing_since)}</dd>
        </div>
      )}
      <div>
        <dt>Added</dt>
        <dd>{formatDateTime(endpoint.created_at)}</dd>
      </div>
    </dl>
  );
}

/** One endpoint: its address, state and events, what to do with it, and its latest deliveries. */
export function EndpointCard({ item, eventTypes, onSecret }: { item: Item; eventTypes: EventType[]; onSecret: (shown: Shown) => void }) {
  const [editing, setEditing] = useState(false);
  const { endpoint } = item;
  const headingId = `endpoint-${endpoint.id}`;
  const { toggle, rotate, remove, redeliver, failed } = useEndpointActions(endpoint, onSecret);
  return (
    <section className="panel endpoint" aria-labelledby={headingId}>
      <div className="group-head">
        <h2 id={headingId} className="endpoint-url">
          {endpoint.url}
        </h2>
        <Badge status={endpoint.enabled ? 'enabled' : 'disabled'} />
      </div>
      {endpoint.description && <p>{endpoint.description}</p>}
      {endpoint.disabled_reason && (
        <p className="form-error" role="note">
          Turned off by hourbook: {endpoint.disabled_reason}
        </p>
      )}
      <EndpointFacts item={item} />
      <div className="row actions-bar">
        <button type="button" className="button" disabled={toggle.isPending} onClick={() => toggle.mutate()}>
          {endpoint.enabled ? 'Turn off' : 'Turn on'}
        </button>
        <button type="button" className="button" onClick={() => setEditing(true)}>
          Edit
        </button>
        <button type="button" className="button" disabled={rotate.isPending} onClick={() => window.confirm('Rotate the signing secret? The current one stops signing at once: the receiver needs the new one.') && rotate.mutate()}>
          Rotate secret
        </button>
        <button type="button" className="button danger" disabled={remove.isPending} onClick={() => window.confirm(`Remove the endpoint ${endpoint.url} with its deliveries?`) && remove.mutate()}>
          Remove
        </button>
      </div>
      <FormError message={failed ? apiError(failed).message : null} />
      <h3>Recent deliveries</h3>
      <Deliveries item={item} redeliver={(id) => redeliver.mutate(id)} pending={redeliver.isPending} />
      {endpoint.enabled ? (
        <RedeliverById onSend={(id) => redeliver.mutate(id)} pending={redeliver.isPending} error={redeliver.error} />
      ) : (
        <p className="hint">Turn the endpoint on to redeliver events to it.</p>
      )}
      {editing && <EndpointDialog eventTypes={eventTypes} endpoint={endpoint} onClose={() => setEditing(false)} />}
    </section>
  );
}
