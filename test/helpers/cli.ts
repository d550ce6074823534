import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const BIN = fileURLToPath(new URL('../../bin/hourbook.js', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real `hourbook` command (bin/hourbook.js) over the workspaces in `dataDir`. */
export const cliOver =
  (dataDir: string) =>
  async (...args: string[]): Promise<CliResult> => {
    try {
      const { stdout, stderr } = await exec(process.execPath, [BIN, ...args], { env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' } });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
