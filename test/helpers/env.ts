import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { Clock } from '../../src/clock.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { createServices } from '../../src/services.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { openWorkspaceScope, type AppServices } from '../../src/services.ts';
import { atTime, type Scope } from '../../src/domain/scope.ts';
import { createCaller } from '../../src/trpc/router.ts';
import type { WorkspaceHandle } from '../../src/workspaces/handle.ts';
import { provisionWorkspace } from '../../src/domain/workspace/provision.ts';
import { apiFor, type Api } from './http.ts';

/** A clock tests can move; starts at the given instant. */
export function testClock(start = '2026-11-18T10:00:00.000Z'): Clock & { set: (iso: string) => void; advance: (ms: number) => void } {
  let now = new Date(start).getTime();
  const clock = (() => new Date(now)) as Clock & { set: (iso: string) => void; advance: (ms: number) => void };
  clock.set = (iso) => {
    now = new Date(iso).getTime();
  };
  clock.advance = (ms) => {
    now += ms;
  };
  return clock;
}

export interface TestWorkspace {
  subdomain: string;
  host: string;
  key: string;
  handle: WorkspaceHandle;
  ownerId: string;
  ownerEmail: string;
  api: Api;
  /** A tRPC caller for this workspace, through the same middleware as /trpc. */
  caller: ReturnType<typeof createCaller>;
}

export interface TestEnv {
  dataDir: string;
  config: Config;
  services: AppServices;
  server: RunningServer;
  url: string;
  /** Two workspaces, so every test can check that one never sees the other. */
  alpha: TestWorkspace;
  beta: TestWorkspace;
  workspace(subdomain: string): TestWorkspace;
  close(): Promise<void>;
}

/**
 * A real server on a free port over real workspace files in a fresh temp dir. Background jobs are
 * off unless asked for, so tests drive them explicitly.
 */
export async function startTestEnv(opts: { clock?: Clock; env?: Record<string, string>; jobs?: boolean } = {}): Promise<TestEnv> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hourbook-test-'));
  // No rate limit unless a test asks for one: suites make thousands of calls with one key.
  // PORT 0 picks a free port; links in mail and PDFs keep the address tests expect.
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', PORT: '0', PUBLIC_URL: 'http://{subdomain}.localhost:3000', RATE_LIMIT_PER_MINUTE: '0', ...opts.env });
  const services = createServices(config, { clock: opts.clock, logger: pino({ level: 'silent' }) });
  const server = await startServer(services, { port: 0, host: '127.0.0.1', jobs: opts.jobs ?? false });

  const workspace = (subdomain: string): TestWorkspace => {
    const created = provisionWorkspace(
      services.registry,
      { subdomain, timeZone: 'UTC', owner: { email: `owner@${subdomain}.test`, firstName: 'Owner', lastName: subdomain } },
      services.clock(),
    );
    const handle = services.registry.get(subdomain);
    if (!handle) throw new Error('workspace not created');
    const host = `${subdomain}.${config.baseDomain}`;
    return {
      subdomain,
      host,
      key: created.apiKey,
      handle,
      ownerId: created.owner.id,
      ownerEmail: created.owner.email,
      api: apiFor(server.url, host, created.apiKey),
      caller: callerFor(services, subdomain, created.apiKey),
    };
  };

  const alpha = workspace('alpha');
  const beta = workspace('beta');
  return {
    dataDir,
    config,
    services,
    server,
    url: server.url,
    alpha,
    beta,
    workspace,
    async close() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A caller with the context a request to this workspace with this key would get. */
export function callerFor(services: AppServices, subdomain: string | null, apiKey: string | undefined) {
  return createCaller({ services, requestId: 'test', subdomain, apiKey });
}

/** A domain scope over an open workspace, acting for the workspace itself, at `now` (default: the services' clock). */
export function scopeOf(services: AppServices, handle: WorkspaceHandle, now?: Date): Scope {
  const { scope } = openWorkspaceScope(services, handle);
  return now ? atTime(scope, now) : scope;
}
