import type { CommandResult } from '../../types/command-result.js';
import { commandStopper } from './command-stopper.js';
import type { ShellLease } from './connection-pool.js';
import { asRoot, type ExecContext } from './exec-context.js';
import { framedResult } from './framed-result.js';

/** Runs the command framed in a leased long-lived shell, then returns the shell to the pool. */
export async function execInShell(context: ExecContext, lease: ShellLease): Promise<CommandResult> {
  const { host, endpoint, pool, cmd, request, display, started } = context;
  const stdin = request.stdin === undefined ? undefined : Buffer.from(request.stdin);
  const runOptions: Parameters<typeof lease.session.run>[1] = {};
  if (stdin) runOptions.stdin = stdin;
  if (request.onOutput) runOptions.onOutput = request.onOutput;
  const run = lease.session.run(cmd, runOptions);
  const stop = commandStopper({
    pool,
    target: async () => ({ pid: await lease.session.shellPid, childrenOnly: true }),
    asRoot: asRoot(context),
    abandon: () => lease.session.close(),
    request,
  });
  const outcome = await run.outcome;
  await stop.finish();
  pool.releaseShell(lease);
  if (outcome.kind === 'lost') {
    const why = lease.conn.alive
      ? `the remote shell ended unexpectedly (${outcome.reason})`
      : `connection to ${host} (${endpoint}) was lost while the command ran: ${lease.conn.lostReason ?? outcome.reason}`;
    return framedResult(host, display, outcome, started, { ...stop.state, lost: why });
  }
  return framedResult(host, display, outcome, started, stop.state);
}
