import { useInfiniteQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { api } from '../api.ts';
import { useMe } from '../session.tsx';
import { Badge } from '../ui/badge.tsx';
import { Loading, Page } from '../ui/page.tsx';
import { Table } from '../ui/table.tsx';
import { BILLING_METHODS, projectAmount } from './client.tsx';
import { StatusFilter, type StatusChoice } from '../ui/status-filter.tsx';

const PAGE = 100;

/**
 * The projects the signed-in person may open: a project manager's own projects (`projects.list`
 * answers only those to anyone but an Owner or Admin), every project for an Owner or Admin. Each
 * leads to its page (settings, tasks, people).
 */
export function ProjectsPage() {
  const me = useMe();
  const [status, setStatus] = useState<StatusChoice>('active');
  const input = { limit: PAGE, ...(status ? { status } : {}) };
  const projects = useInfiniteQuery({
    queryKey: ['projects.list.pages', input],
    queryFn: ({ pageParam }) => api.projects.list.query({ ...input, ...(pageParam ? { cursor: pageParam } : {}) }),
    initialPageParam: '',
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    placeholderData: (previous) => previous,
  });
  const rows = projects.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <Page title="Projects">
      <p className="muted">{me.is_admin ? 'Every project of the workspace. New projects are added on their client’s page.' : 'The projects you manage: their settings, tasks and people.'}</p>
      <div className="toolbar">
        <StatusFilter value={status} onChange={setStatus} />
      </div>
      {projects.data ? (
        <>
          <Table
            caption="Projects"
            captionHidden
            rows={rows}
            rowKey={(p) => p.id}
            empty={status === 'archived' ? 'No archived projects.' : me.is_admin ? 'No projects yet.' : 'You manage no projects yet.'}
            columns={[
              { header: 'Project', cell: (p) => <Link href={`/projects/${p.id}`}>{p.name}</Link> },
              { header: 'Code', cell: (p) => p.identifier },
              { header: 'Billing', cell: (p) => BILLING_METHODS.find(([v]) => v === p.billing_method)?.[1] ?? p.billing_method },
              { header: 'Rate or price', align: 'end', cell: (p) => projectAmount(p) ?? '—' },
              { header: 'Status', cell: (p) => <Badge status={p.status} /> },
            ]}
          />
          {projects.hasNextPage && (
            <p>
              <button type="button" className="button" disabled={projects.isFetchingNextPage} onClick={() => void projects.fetchNextPage()}>
                Show more projects
              </button>
            </p>
          )}
        </>
      ) : (
        <Loading error={projects.error} what="the projects" />
      )}
    </Page>
  );
}
