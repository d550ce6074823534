import type { Effect } from '../domain/scope.ts';
import { existsSync } from 'node:fs';
import { controlSocketPath } from '../ops/control-socket.ts';
import { adminCall } from '../ops/node-client.ts';

/**
 * Tells the server serving `dataDir` (if one does) which workspaces a command wrote to and what
 * its writes gave the jobs to do: a server's jobs are woken by its own commits and otherwise look
 * at a workspace only now and then (hours apart), so a delivery queued by `webhook redeliver` or
 * mail queued by a command would wait that long. Best effort: without a server, or with one that
 * does not answer, the jobs find the work on their next visit.
 */
export async function wakeServer(dataDir: string, woken: ReadonlyMap<string, ReadonlySet<Effect>>): Promise<void> {
  const socketPath = controlSocketPath(dataDir);
  if (!existsSync(socketPath)) return;
  // A server that accepts but does not answer (its event loop held) must not keep a command whose
  // work is done: each call gives up after WAKE_TIMEOUT_MS, its connection closed.
  await Promise.all(
    [...woken].map(([subdomain, effects]) =>
      adminCall({ socketPath }, 'POST', `/workspaces/${subdomain}/wake`, { effects: [...effects] }, { timeoutMs: WAKE_TIMEOUT_MS }).catch(() => undefined),
    ),
  );
}

/** How long a command waits for the server to take its wake. */
const WAKE_TIMEOUT_MS = 2000;
