import { useEffect, type ReactNode } from 'react';
import { apiError } from '../api.ts';

/**
 * One page: its title (also the document's), actions beside it, and its content. `titleId` lets a
 * page move focus to its heading after a change (a dialog closing on what it changed).
 */
export function Page({ title, titleId, actions, children }: { title: string; titleId?: string; actions?: ReactNode; children: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · hourbook`;
  }, [title]);
  return (
    <>
      <div className="page-head">
        <h1 id={titleId} tabIndex={titleId ? -1 : undefined}>
          {title}
        </h1>
        {actions && <div className="actions">{actions}</div>}
      </div>
      {children}
    </>
  );
}

/** The page says so when it is not the viewer's to see (a Member on an Owner's page). */
export function NoAccess() {
  return (
    <div className="panel" role="alert">
      <h2>No access</h2>
      <p>This page is for Owners and Admins of the workspace (or the managers of a project). Ask one of them if you need it.</p>
    </div>
  );
}

/** What a page shows while its data loads, or when loading failed. */
export function Loading({ error, what }: { error: unknown; what: string }) {
  if (!error) {
    return (
      <p className="muted" role="status">
        Loading {what}…
      </p>
    );
  }
  const e = apiError(error);
  if (e.status === 403) return <NoAccess />;
  return (
    <p className="form-error" role="alert">
      {what[0]?.toUpperCase()}
      {what.slice(1)} could not be loaded: {e.message}
    </p>
  );
}
