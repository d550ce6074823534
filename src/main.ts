import { UsageError } from './cli/args.ts';
import { run } from './cli/index.ts';

/** The `hourbook` command line: errors on stderr with exit status 1, results on stdout. */
run(process.argv.slice(2), { out: (line) => process.stdout.write(`${line}\n`) })
  .then((status) => {
    if (status !== 0) process.exitCode = status;
  })
  .catch(async (err: unknown) => {
    // config.ts (and zod with it) is loaded only by commands that need it, so `--version` stays light.
    const [{ ConfigError }, { NodeRequestError }, { ControlSocketDenied }] = await Promise.all([import('./config.ts'), import('./ops/node-client.ts'), import('./ops/control-socket.ts')]);
    // A server's refusal (a workspace held by a move, say) is said as the server said it.
    if (err instanceof UsageError || err instanceof ConfigError || err instanceof NodeRequestError || err instanceof ControlSocketDenied) {
      process.stderr.write(`hourbook: ${err.message}\n`);
    } else {
      process.stderr.write(`hourbook: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    }
    process.exitCode = 1;
  });
