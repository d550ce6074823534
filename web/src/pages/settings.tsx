import { useQuery } from '@tanstack/react-query';
import { api } from '../api.ts';
import { formatDate } from '../format.ts';
import { Loading, Page } from '../ui/page.tsx';
import { ApiKeys } from './api-keys.tsx';

export function SettingsPage() {
  const details = useQuery({ queryKey: ['workspace.details'], queryFn: () => api.workspace.details.query() });
  const d = details.data;
  return (
    <Page title="Settings">
      <section className="panel" aria-labelledby="workspace">
        <h2 id="workspace">Workspace</h2>
        {d ? (
          <dl className="facts">
            <div>
              <dt>Name</dt>
              <dd>{d.name}</dd>
            </div>
            <div>
              <dt>Address</dt>
              <dd>{d.public_url}</dd>
            </div>
            <div>
              <dt>Time zone</dt>
              <dd>{d.time_zone.replaceAll('_', ' ')}</dd>
            </div>
            <div>
              <dt>Since</dt>
              <dd>{formatDate(d.created_at.slice(0, 10))}</dd>
            </div>
            <div>
              <dt>API</dt>
              <dd>
                <a href="/docs">Reference</a> · <code>/api/external/v2</code>
              </dd>
            </div>
          </dl>
        ) : (
          <Loading error={details.error} what="the workspace" />
        )}
      </section>
      <section className="panel" aria-labelledby="keys">
        <h2 id="keys">API keys</h2>
        <p className="muted">A workspace key speaks for the workspace: integrations name the acting person in each request. Personal keys act as one member and are managed on that member’s account page.</p>
        <ApiKeys personal={false} />
      </section>
    </Page>
  );
}
