import { adminCall, type NodeAddress } from '../ops/node-client.ts';
import type { HoldState } from '../workspaces/gate.ts';
import { isValidSubdomain } from '../workspaces/host.ts';
import { parse, required, UsageError } from './args.ts';
import { print, type Command } from './context.ts';
import { servingServer } from './replace-file.ts';

/** Where the hold is: a node of CLUSTER_NODES (`--node`), else the server serving this data directory; null when none does. */
async function addressOf(services: Parameters<Command>[1], node: string | undefined): Promise<{ address: NodeAddress; where: string } | null> {
  const { config } = services;
  if (node !== undefined) {
    const url = config.clusterNodes.get(node);
    if (!url) throw new UsageError(`"${node}" is not in CLUSTER_NODES (${[...config.clusterNodes.keys()].join(', ') || 'not set'})`);
    if (!config.clusterSecret) throw new UsageError('--node needs CLUSTER_SECRET in the environment');
    return { address: { url, secret: config.clusterSecret }, where: `node ${node}` };
  }
  const serving = await servingServer(services);
  if (!serving) return null;
  return { address: serving.control, where: `the server of ${config.dataDir} (pid ${serving.pid})` };
}

/**
 * `hourbook workspace resume <subdomain> [--node NODE] [--force]`: lifts a hold that its operation
 * left behind (a move or restore killed half-way keeps the workspace's writes paused until then).
 * A handed-over workspace (every request answered 503) may be served by another node already, so
 * lifting that hold needs `--force`: the operator checks first where HAProxy routes it.
 */
export const resume: Command = async (argv, services, io) => {
  const { values, positionals } = parse(argv, { node: { type: 'string' }, force: { type: 'boolean' } });
  const subdomain = required('<subdomain>', positionals[0]);
  if (!isValidSubdomain(subdomain)) throw new UsageError(`"${subdomain}" is not a workspace name`);
  const node = await addressOf(services, values.node);
  if (!node) {
    // Holds live in the serving process's memory: with no server, nothing is held, as when the
    // server holds nothing of this workspace (a killed move's hold died with its server).
    print(io, values.json, { subdomain, resumed: false, hold: null }, `no server serves ${services.config.dataDir}, so ${subdomain} is not held there: nothing to resume`);
    return;
  }
  const { address, where } = node;
  const status = await adminCall<{ holds: Record<string, HoldState> }>(address, 'GET', '/status');
  const hold = Object.hasOwn(status.holds, subdomain) ? status.holds[subdomain] : undefined;
  if (!hold) {
    print(io, values.json, { subdomain, resumed: false, hold: null }, `${subdomain} is not held on ${where}: nothing to resume`);
    return;
  }
  if (hold.hold === 'all' && !values.force) {
    throw new UsageError(
      `${subdomain} was handed over on ${where} (${hold.reason}, since ${hold.since}): another node may serve it now. Check where HAProxy routes it; resume it here only if that is this node, with --force`,
    );
  }
  // Only the hold seen above: one taken or widened since (a move that was alive after all) stays.
  const lifted = await adminCall<{ released: boolean }>(address, 'POST', `/workspaces/${subdomain}/resume`, { ...(hold.operation ? { operation: hold.operation } : {}), hold: hold.hold });
  if (!lifted.released) throw new UsageError(`the hold on ${subdomain} changed while this ran (its operation is alive?); look again before resuming`);
  const was = hold.hold === 'all' ? 'handed over' : 'writes paused';
  print(io, values.json, { subdomain, resumed: true, hold }, `resumed ${subdomain} on ${where} (it was ${was}: ${hold.reason}, since ${hold.since})`);
};
