import type { Logger } from 'pino';
import { systemClock, type Clock } from './clock.ts';
import { publicUrlFor, type Config } from './config.ts';
import { openScope, type Effect, type OpenScope, type Scope } from './domain/scope.ts';
import type { ActingUser } from './domain/team-members/acting-user.ts';
import { secretBox, type SecretBox } from './domain/webhooks/secret.ts';
import { createLogger } from './logger.ts';
import type { WorkspaceHandle } from './workspaces/handle.ts';
import { workspaceInfo } from './workspaces/info.ts';
import { RateLimiter } from './workspaces/rate-limit.ts';
import { WorkspaceRegistry } from './workspaces/registry.ts';

/** What lives as long as the process, shared by both doors, the jobs and the command line. */
export interface AppServices {
  config: Config;
  registry: WorkspaceRegistry;
  clock: Clock;
  logger: Logger;
  rateLimiter: RateLimiter;
  /** Seals and opens the secrets workspaces keep for signing (keyed by `SECRET_KEY` when set). */
  secrets: SecretBox;
  /**
   * Runs a job's pass for one workspace soon (after a commit that gave it work). A no-op until the
   * server starts its jobs; the command line and tests without jobs leave it so.
   */
  wake: (job: Effect, subdomain: string) => void;
}

export function createServices(config: Config, opts: { clock?: Clock; logger?: Logger } = {}): AppServices {
  return {
    config,
    registry: new WorkspaceRegistry({ dataDir: config.dataDir, synchronous: config.sqliteSynchronous, commitDelayMs: config.commitDelayMs }),
    clock: opts.clock ?? systemClock,
    logger: opts.logger ?? createLogger(config.logLevel),
    rateLimiter: new RateLimiter(config.rateLimitPerMinute),
    secrets: secretBox(config.secretKey),
    wake: () => {},
  };
}

/** The domain part of an address such as `hourbook <no-reply@example.com>`: every Message-ID's domain. */
function domainOfAddress(from: string): string {
  const m = /@([^>\s]+)>?\s*$/.exec(from);
  return m?.[1]?.toLowerCase() ?? 'hourbook.local';
}

/**
 * A scope over one open workspace for a call made now (a request, a job's pass, a command). Its
 * `settle` wakes the jobs the call gave work to; call it once the operation has returned. Requests
 * share commits (`shareCommit`) and wait for `durable()` before they answer.
 */
export function openWorkspaceScope(
  services: AppServices,
  handle: WorkspaceHandle,
  opts: { actor?: ActingUser | null; shareCommit?: boolean } = {},
): OpenScope {
  return openScope(
    {
      db: handle.db,
      memo: (build) => handle.memo(build),
      workspace: workspaceInfo(handle),
      now: services.clock(),
      links: { publicBase: publicUrlFor(services.config, handle.subdomain), messageIdDomain: domainOfAddress(services.config.mailFrom) },
      secrets: services.secrets,
      actor: opts.actor ?? null,
      commits: handle.commits,
      shareCommit: opts.shareCommit ?? false,
    },
    (effect) => services.wake(effect, handle.subdomain),
  );
}

/** Runs one domain operation now, in a scope of its own, then starts what it asked for (mail). */
export function runInScope<T>(services: AppServices, handle: WorkspaceHandle, operation: (scope: Scope) => T): T {
  const open = openWorkspaceScope(services, handle);
  const result = operation(open.scope);
  open.settle();
  return result;
}
