import { MoveError, moveWorkspace } from '../ops/move.ts';
import { NodeRequestError } from '../ops/node-client.ts';
import { parse, required, UsageError } from './args.ts';
import { print, type Command } from './context.ts';

/** `hourbook workspace move <subdomain> --to <node> [--from <node>]`: see src/ops/move.ts and docs/operations.md. */
export const move: Command = async (argv, services, io) => {
  const { values, positionals } = parse(argv, { to: { type: 'string' }, from: { type: 'string' } });
  const subdomain = required('<subdomain>', positionals[0]);
  const to = required('--to', values.to);
  try {
    const result = await moveWorkspace(services.config, subdomain, { to, from: values.from }, (line) => {
      if (!values.json) io.out(line);
    });
    if (values.json) print(io, true, result, '');
  } catch (err) {
    // A refusal by a node, an unreachable node or HAProxy socket: the operator's to fix, said plainly.
    const code = (err as NodeJS.ErrnoException).code;
    if (err instanceof MoveError || err instanceof NodeRequestError || code === 'ECONNREFUSED' || code === 'ENOENT' || code === 'EACCES') {
      throw new UsageError(`move of ${subdomain} failed: ${(err as Error).message}`);
    }
    throw err;
  }
};
