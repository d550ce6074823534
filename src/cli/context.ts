import type { OpenScope, Scope } from '../domain/scope.ts';
import { AppError } from '../errors.ts';
import { openWorkspaceScope, type AppServices } from '../services.ts';
import type { WorkspaceHandle } from '../workspaces/handle.ts';
import { required, UsageError } from './args.ts';

/** Where a command writes its result: one line (or one JSON object) on stdout. */
export interface Io {
  out: (line: string) => void;
}

/** One command: its arguments after `hourbook <group> <name>`, the process's services, stdout. */
export type Command = (argv: string[], services: AppServices, io: Io) => Promise<void> | void;

/** `--json` prints the data as one JSON object; otherwise the human line. */
export const print = (io: Io, json: boolean | undefined, data: unknown, human: string) => io.out(json ? JSON.stringify(data) : human);

/** Columns padded to their widest cell, for a person reading a terminal. */
export function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ')).join('\n');
}

/** The open handle of the workspace a command names, or a usage error naming the data directory. */
export function openWorkspace(services: AppServices, subdomain: string | undefined): WorkspaceHandle {
  const name = required('<subdomain>', subdomain);
  const handle = services.registry.get(name);
  if (!handle) throw new UsageError(`no workspace named "${name}" under ${services.config.dataDir}`);
  return handle;
}

/** A command acts for the workspace itself (no person), like a call with the workspace's own key. */
export function scopeOf(services: AppServices, handle: WorkspaceHandle): Scope {
  const open = openWorkspaceScope(services, handle);
  opened.push(open);
  return open.scope;
}

/** The scopes the running command opened: settled when it ends, so its writes wake the jobs (`services.wake`). */
const opened: OpenScope[] = [];

/** Hands every effect the command's writes registered to `services.wake`; run() calls it when a command ends. */
export function settleScopes(): void {
  for (const open of opened.splice(0)) open.settle();
}

/** Domain errors (a taken e-mail, an unknown role) are bad arguments on the command line. */
export function asUsage<T>(fn: () => T, flags: Record<string, string> = {}): T {
  try {
    return fn();
  } catch (err) {
    const detail = err instanceof AppError ? err.details?.[0] : undefined;
    if (detail) throw new UsageError(`${flags[detail.path] ?? `--${detail.path.replaceAll('_', '-')}`}: ${detail.message}`);
    if (err instanceof AppError) throw new UsageError(err.message);
    throw err;
  }
}
