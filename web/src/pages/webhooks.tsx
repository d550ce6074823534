import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../api.ts';
import { Loading, Page } from '../ui/page.tsx';
import { SecretOnce } from '../ui/secret.tsx';
import { SettingsNav } from './settings-nav.tsx';
import { EndpointCard, EndpointDialog, type Shown } from './webhook-endpoint.tsx';

/** Webhook endpoints with their recent deliveries, in one call (`webhooks.overview`). */
export function WebhooksPage() {
  const [adding, setAdding] = useState(false);
  const [shown, setShown] = useState<Shown>(null);
  const overview = useQuery({
    queryKey: ['webhooks.overview'],
    queryFn: () => api.webhooks.overview.query({}),
    // Deliveries on their way: look again now and then.
    refetchInterval: (q) => (q.state.data?.items.some((i) => i.recent_deliveries.some((d) => d.status === 'pending')) ? 5000 : false),
  });
  const data = overview.data;
  return (
    <Page
      title="Webhooks"
      actions={
        <button type="button" className="button primary" onClick={() => setAdding(true)} disabled={!data}>
          Add an endpoint
        </button>
      }
    >
      <SettingsNav />
      <p className="muted">
        hourbook POSTs every change (an invoice paid, time approved, …) to these addresses, signed per the Standard Webhooks specification with the endpoint’s secret. Failed
        deliveries are retried for 3 days.
      </p>
      {shown && (
        <SecretOnce what="signing secret" secret={shown.secret} onDone={() => setShown(null)}>
          <p>
            The receiver at <code>{shown.url}</code> needs it to verify the <code>webhook-signature</code> header. If it is lost, rotate the secret.
          </p>
        </SecretOnce>
      )}
      {data ? (
        data.items.length === 0 ? (
          <p className="empty panel">No endpoints yet. Add one to hear about changes without polling.</p>
        ) : (
          data.items.map((item) => <EndpointCard key={item.endpoint.id} item={item} eventTypes={data.event_types} onSecret={setShown} />)
        )
      ) : (
        <Loading error={overview.error} what="the webhook endpoints" />
      )}
      {adding && data && <EndpointDialog eventTypes={data.event_types} onCreated={setShown} onClose={() => setAdding(false)} />}
    </Page>
  );
}
