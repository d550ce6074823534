import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** The package's bin, as an operator runs it: dist/ when built and current, else the sources. */
export const BIN = fileURLToPath(new URL('../../bin/hourbook.js', import.meta.url));

const exec = promisify(execFile);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs one `hourbook` command in its own process with this environment added. */
export async function hourbook(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [BIN, ...args], { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

export interface Spawned {
  child: ChildProcess;
  /** Everything it printed so far, stdout and stderr. */
  output: () => string;
  exited: Promise<number | null>;
  /** SIGTERM, then the exit status. */
  stop: () => Promise<number | null>;
  /** SIGKILL to its whole process group (it and what it started), then waits for it to be gone. */
  kill9: () => Promise<void>;
}

/**
 * Starts a long-running command (`serve`, `litestream replicate`) in a process group of its own
 * and waits until its output contains `readyWhen`.
 */
export async function spawnHourbook(env: Record<string, string>, args: string[], readyWhen = 'listening', timeoutMs = 60_000): Promise<Spawned> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, detached: true });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let gone = false;
  void exited.then(() => (gone = true));
  const started = Date.now();
  while (!output.includes(readyWhen)) {
    if (gone || Date.now() - started > timeoutMs) throw new Error(`hourbook ${args.join(' ')} did not start: ${output}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    child,
    output: () => output,
    exited,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
    kill9: async () => {
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        // already gone
      }
      await exited;
    },
  };
}
