import { randomUUID } from 'node:crypto';
import type { Config } from '../config.ts';
import { setRoute, routeOf } from './haproxy.ts';
import { adminCall, type NodeAddress } from './node-client.ts';

export class MoveError extends Error {}

export interface MoveResult {
  subdomain: string;
  from: string;
  to: string;
  bytes: number;
  /** SHA-256 of the snapshot the target received first. */
  sha256: string;
  /** Pages written on the source while that snapshot was sent and checked, fetched while writes were paused. */
  pagesChanged: number;
  /** How long writes to the workspace were refused (503), in milliseconds. */
  pausedMs: number;
  retiredTo: string;
}

interface ClusterSettings {
  nodes: Map<string, string>;
  secret: string;
  socket: string;
  map: string;
}

function clusterSettings(config: Config): ClusterSettings {
  const missing = [
    ...(config.clusterNodes.size < 2 ? ['CLUSTER_NODES (two nodes or more)'] : []),
    ...(config.clusterSecret ? [] : ['CLUSTER_SECRET']),
    ...(config.haproxySocket ? [] : ['HAPROXY_SOCKET']),
    ...(config.haproxyMap ? [] : ['HAPROXY_MAP']),
  ];
  if (missing.length > 0) throw new MoveError(`a move needs ${missing.join(', ')} in the environment (see docs/operations.md)`);
  return { nodes: config.clusterNodes, secret: config.clusterSecret as string, socket: config.haproxySocket as string, map: config.haproxyMap as string };
}

/**
 * Moves one workspace to another node while the service stays up, in the order that never loses
 * an acknowledged write and never serves two live copies:
 *
 * 1. copy: the target receives a snapshot of the source's file and checks its integrity, while the
 *    workspace keeps taking writes;
 * 2. pause: the source refuses new writes (503 + Retry-After; clients retry) and waits for the
 *    writes in flight; reads go on;
 * 3. catch up: the target fetches the pages that changed since its snapshot, proves its copy
 *    identical to the source's file page by page, and installs it;
 * 4. hand over: the source answers every request for the workspace with 503 and closes the file;
 * 5. route: HAProxy's map sends the subdomain to the target (runtime API, then the map file), so
 *    the retried writes land there;
 * 6. retire: the source moves its copy to DATA_DIR/retired/.
 *
 * Writes are paused for steps 2 to 5 only: the time to hash the source's file and send what
 * changed, not the time of a whole copy. A failure before step 5 undoes what was done (the
 * target's copy is deleted or retired, the source resumes).
 *
 * Each move is one operation with an id of its own, which every pause, hand-over, resume and retire
 * names: the holds it takes are its own, so a second move (or a restore) of the same workspace
 * meanwhile is refused with 409 `workspace_busy` instead of interleaving its steps with this one's.
 * Its pause must last until the hand-over: if an operator resumes the workspace meanwhile, the
 * source refuses to send pages or hand over (409 `hold_lost`) and the move is undone.
 */
export async function moveWorkspace(config: Config, subdomain: string, opts: { to: string; from?: string }, log: (line: string) => void): Promise<MoveResult> {
  const cluster = clusterSettings(config);
  const at = (name: string, role: string): NodeAddress => {
    const url = cluster.nodes.get(name);
    if (!url) throw new MoveError(`${role} "${name}" is not in CLUSTER_NODES (${[...cluster.nodes.keys()].join(', ')})`);
    return { url, secret: cluster.secret };
  };
  // Without a map entry the frontend's default backend serves it: by convention the first node.
  const from = opts.from ?? (await routeOf(cluster.socket, cluster.map, subdomain)) ?? [...cluster.nodes.keys()][0] ?? '';
  if (from === opts.to) throw new MoveError(`${subdomain} is already on ${opts.to}`);
  const source = at(from, 'source node');
  const target = at(opts.to, 'target node');

  const operation = `move-${randomUUID()}`;
  const prepared = await adminCall<{ transfer: string; bytes: number; sha256: string }>(target, 'POST', `/workspaces/${subdomain}/prepare`, { from });
  log(`copied ${subdomain} to ${opts.to} while it took writes: ${prepared.bytes} bytes, sha256 ${prepared.sha256.slice(0, 16)}…, integrity ok`);
  const pausedAt = performance.now();
  try {
    await adminCall(source, 'POST', `/workspaces/${subdomain}/pause`, { reason: `moving to ${opts.to}`, operation });
  } catch (err) {
    await adminCall(target, 'POST', `/workspaces/${subdomain}/discard`, { transfer: prepared.transfer }).catch(() => undefined);
    // The pause may have taken effect with its answer lost; this lifts only this move's own hold.
    await adminCall(source, 'POST', `/workspaces/${subdomain}/resume`, { operation }).catch(() => undefined);
    throw err;
  }
  log(`writes to ${subdomain} paused on ${from}`);
  let pulled: { bytes: number; pages_changed: number; pages_sha256: string } | undefined;
  try {
    pulled = await adminCall<{ bytes: number; pages_changed: number; pages_sha256: string }>(target, 'POST', `/workspaces/${subdomain}/pull`, { from, transfer: prepared.transfer, operation });
    log(`${opts.to} fetched the ${pulled.pages_changed} pages written since; its copy is identical (${pulled.bytes} bytes, page digest ${pulled.pages_sha256.slice(0, 16)}…)`);
    // Only while this move's pause is still in force: writes taken after a resume would stay behind.
    await adminCall(source, 'POST', `/workspaces/${subdomain}/hand-over`, { reason: `moved to ${opts.to}`, operation, paused: true }, { timeoutMs: HAND_OVER_TIMEOUT_MS });
    await setRoute(cluster.socket, cluster.map, subdomain, opts.to);
  } catch (err) {
    // Only a copy this move installed is retired: a refused pull may mean the target has its own workspace of that name.
    await undo(source, pulled ? target : null, subdomain, operation, log);
    throw err;
  }
  const pausedMs = Math.round(performance.now() - pausedAt);
  log(`HAProxy routes ${subdomain} to ${opts.to}; writes resumed there after ${pausedMs} ms`);
  const { retired_to: retiredTo } = await adminCall<{ retired_to: string }>(source, 'POST', `/workspaces/${subdomain}/retire`, { operation });
  log(`the copy on ${from} is retired to ${retiredTo}`);
  return { subdomain, from, to: opts.to, bytes: pulled.bytes, sha256: prepared.sha256, pagesChanged: pulled.pages_changed, pausedMs, retiredTo };
}

/**
 * How long a node may take to hand a workspace over: it cuts downloads after 2 s and gives up on a
 * request still running 30 s later (registry.handOver), so an answer later than this is a node
 * that will not answer; the move is then undone rather than left waiting.
 */
const HAND_OVER_TIMEOUT_MS = 120_000;

/** Puts things back after a failed move: the target's copy (if any) retired, the source serving again. */
async function undo(source: NodeAddress, target: NodeAddress | null, subdomain: string, operation: string, log: (line: string) => void): Promise<void> {
  try {
    if (target) {
      await adminCall(target, 'POST', `/workspaces/${subdomain}/hand-over`, { reason: 'move undone', operation }, { timeoutMs: HAND_OVER_TIMEOUT_MS });
      await adminCall(target, 'POST', `/workspaces/${subdomain}/retire`, { operation });
    }
  } catch (err) {
    log(`could not retire the copy of ${subdomain} on the target: ${(err as Error).message}`);
  } finally {
    await adminCall(source, 'POST', `/workspaces/${subdomain}/resume`, { operation }).catch((err: Error) => log(`could not resume ${subdomain} on the source: ${err.message}`));
  }
  log(`move of ${subdomain} undone; it is served by the source again`);
}
