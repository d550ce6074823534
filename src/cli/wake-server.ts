import type { Effect } from '../domain/scope.ts';
import { controlSocketPath, runningServer } from '../ops/control-socket.ts';
import { adminCall } from '../ops/node-client.ts';

/**
 * Tells the server serving `dataDir` (if one does) which workspaces a command wrote to and what
 * its writes gave the jobs to do: a server's jobs are woken by its own commits and otherwise look
 * at a workspace only now and then (hours apart), so a delivery queued by `webhook redeliver` or
 * mail queued by a command would wait that long. Best effort: without a server, or with one that
 * does not answer, the jobs find the work on their next visit.
 */
export async function wakeServer(dataDir: string, woken: ReadonlyMap<string, ReadonlySet<Effect>>): Promise<void> {
  const server = await runningServer(dataDir).catch(() => null);
  if (!server) return;
  const control = { socketPath: controlSocketPath(dataDir) };
  await Promise.all([...woken].map(([subdomain, effects]) => adminCall(control, 'POST', `/workspaces/${subdomain}/wake`, { effects: [...effects] }).catch(() => undefined)));
}
