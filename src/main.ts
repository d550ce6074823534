import { UsageError } from './cli/args.ts';
import { run } from './cli/index.ts';
import { ConfigError } from './config.ts';

/** The `hourbook` command line: errors on stderr with exit status 1, results on stdout. */
run(process.argv.slice(2), { out: (line) => process.stdout.write(`${line}\n`) })
  .then((status) => {
    if (status !== 0) process.exitCode = status;
  })
  .catch((err: unknown) => {
    if (err instanceof UsageError || err instanceof ConfigError) {
      process.stderr.write(`hourbook: ${err.message}\n`);
    } else {
      process.stderr.write(`hourbook: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    }
    process.exitCode = 1;
  });
