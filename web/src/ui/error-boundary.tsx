import { Component, type ErrorInfo, type ReactNode } from 'react';

/**
 * A page's code that could not be downloaded: the app was updated since this tab loaded it (the
 * old files are gone) or the connection dropped. Browsers word it differently.
 */
export function isChunkLoadError(error: unknown): boolean {
  const message = error instanceof Error ? `${error.name} ${error.message}` : String(error);
  return /dynamically imported module|Importing a module script failed|error loading dynamically imported|Unable to preload|ChunkLoadError|Loading chunk/i.test(message);
}

/** What the person sees instead of a blank page when the app fails while drawing. */
export function AppFailed({ error }: { error: unknown }) {
  const chunk = isChunkLoadError(error);
  return (
    <main id="main" className="app-failed">
      <div className="panel" role="alert" aria-labelledby="app-failed-title">
        <h1 id="app-failed-title">{chunk ? 'This page could not be loaded' : 'Something went wrong'}</h1>
        <p>
          {chunk
            ? 'hourbook was updated since you opened it, or the connection dropped. Reload to get the current version; if you are offline, reload once you are back online.'
            : 'The page stopped working because of an error in the app. Reload to start again; what you saved is kept.'}
        </p>
        <button type="button" className="button primary" onClick={() => window.location.reload()}>
          Reload
        </button>
      </div>
    </main>
  );
}

/** Catches what fails while drawing (a page's code that does not download, a bug) and offers a reload. */
export class ErrorBoundary extends Component<{ children: ReactNode }, { error: unknown; failed: boolean }> {
  override state = { error: null as unknown, failed: false };

  static getDerivedStateFromError(error: unknown) {
    return { error, failed: true };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo) {
    console.error('hourbook: the app failed while drawing', error, info.componentStack);
  }

  override render() {
    return this.state.failed ? <AppFailed error={this.state.error} /> : this.props.children;
  }
}
