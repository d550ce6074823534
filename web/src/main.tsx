import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { queryClient } from './api.ts';
import { App } from './app.tsx';
import { ErrorBoundary } from './ui/error-boundary.tsx';
import './styles.css';

// A page's code that fails to download (the app updated, the connection dropped) or a bug while
// drawing shows a message with a Reload button, not a blank page.
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <ErrorBoundary>
        <App />
      </ErrorBoundary>
    </QueryClientProvider>
  </StrictMode>,
);
