import { useQuery } from '@tanstack/react-query';
import { api, type Outputs } from '../api.ts';
import { formatDayOf } from '../format.ts';
import { Loading, Page } from '../ui/page.tsx';
import { ApiKeys } from './api-keys.tsx';
import { SettingsNav } from './settings-nav.tsx';
import { IdentityForm } from './settings-identity.tsx';
import { CardPayment } from './settings-payments.tsx';

type Settings = Outputs['workspace']['settings'];

function Facts({ details }: { details: Settings['details'] }) {
  return (
    <dl className="facts">
      <div>
        <dt>Name</dt>
        <dd>{details.name}</dd>
      </div>
      <div>
        <dt>Address</dt>
        <dd>{details.public_url}</dd>
      </div>
      <div>
        <dt>Time zone</dt>
        <dd>{details.time_zone.replaceAll('_', ' ')}</dd>
      </div>
      <div>
        <dt>Since</dt>
        <dd>{formatDayOf(details.created_at, details.time_zone)}</dd>
      </div>
      <div>
        <dt>API</dt>
        <dd>
          <a href="/docs">Reference</a> · <code>/api/external/v2</code>
        </dd>
      </div>
    </dl>
  );
}

/** The workspace's settings: its facts, identity, card payment (one call: `workspace.settings`) and API keys. */
export function SettingsPage() {
  const settings = useQuery({ queryKey: ['workspace.settings'], queryFn: () => api.workspace.settings.query() });
  const s = settings.data;
  return (
    <Page title="Settings">
      <SettingsNav />
      {s ? (
        <>
          <section className="panel" aria-labelledby="workspace">
            <h2 id="workspace">Workspace</h2>
            <Facts details={s.details} />
          </section>
          <section className="panel" aria-labelledby="identity">
            <h2 id="identity">On invoices and e-mail</h2>
            <IdentityForm identity={s.identity} workspaceName={s.details.name} />
          </section>
          <section className="panel" aria-labelledby="card">
            <h2 id="card">Card payment</h2>
            <CardPayment processor={s.payment_processor} />
          </section>
        </>
      ) : (
        <Loading error={settings.error} what="the settings" />
      )}
      <section className="panel" aria-labelledby="keys">
        <h2 id="keys">API keys</h2>
        <p className="muted">A workspace key speaks for the workspace: integrations name the acting person in each request. Personal keys act as one member and are managed on that member’s account page.</p>
        <ApiKeys personal={false} />
      </section>
    </Page>
  );
}
