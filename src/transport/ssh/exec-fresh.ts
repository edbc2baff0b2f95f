import type { ClientChannel } from 'ssh2';
import type { CommandResult } from '../../types/command-result.js';
import { failedResult } from '../../types/command-result.js';
import { commandStopper } from './command-stopper.js';
import type { ChannelExit } from './connection-pool.js';
import { asRoot, type ExecContext } from './exec-context.js';
import { type FramedOutcome, FrameReader } from './frame-reader.js';
import { framedResult } from './framed-result.js';
import { execCommandLine, newToken, sudoMarkers } from './shell-script.js';
import { SudoGate } from './sudo-gate.js';

/** A fresh exec channel for one command: PTYs, become with a password, hosts without a usable shell. */
export async function execFresh(context: ExecContext, withPassword: boolean): Promise<CommandResult> {
  const { host, endpoint, target, pool, cmd, request, display, started } = context;
  const token = newToken();
  const readerOptions: ConstructorParameters<typeof FrameReader>[1] = { trailers: false };
  if (request.onOutput) readerOptions.onOutput = request.onOutput;
  const reader = new FrameReader(token, readerOptions);
  let channel: ClientChannel;
  let exited: Promise<ChannelExit>;
  let connAlive: () => boolean;
  let lostReason: () => string | undefined;
  try {
    const opened = await pool.openExec(
      execCommandLine(cmd, token, withPassword),
      // A PTY would echo the password: the password path never gets one.
      request.pty && !withPassword ? { pty: request.pty === true ? {} : request.pty } : {},
    );
    channel = opened.channel;
    exited = opened.exited;
    connAlive = () => opened.conn.alive;
    lostReason = () => opened.conn.lostReason;
  } catch (error) {
    return failedResult(display, (error as Error).message, Date.now() - started, host);
  }
  let exit: ChannelExit = { code: null };
  const stdin = request.stdin === undefined ? undefined : Buffer.from(request.stdin);
  const gate = withPassword
    ? new SudoGate(sudoMarkers(token), {
        onPrompt: (n) => {
          if (n === 1) channel.write(Buffer.concat([target.becomePassword!, Buffer.from('\n')]));
          else channel.end();
        },
        onStarted: () => {
          if (stdin) channel.write(stdin);
          channel.end();
        },
        pass: (data) => reader.pushStderr(data),
      })
    : undefined;
  const done = new Promise<void>((resolve) => {
    channel.on('data', (data: Buffer) => reader.pushStdout(data));
    channel.stderr.on('data', (data: Buffer) => (gate ? gate.push(data) : reader.pushStderr(data)));
    void exited.then((end) => {
      exit = end;
      gate?.end();
      reader.end();
      resolve();
    });
  });
  const stop = commandStopper({
    pool,
    target: async () => ({ pid: await reader.waitForPid(), childrenOnly: false }),
    asRoot: asRoot(context),
    abandon: () => channel.close(),
    request,
  });
  // With a become password, the gate writes the password (never in the command line) and stdin.
  if (!gate) {
    if (stdin) channel.write(stdin);
    if (!request.pty || stdin) channel.end();
  }
  await done;
  await stop.finish();
  const outcome: FramedOutcome = { ...reader.outcome(), exitCode: exit.code };
  if (!connAlive()) {
    return framedResult(host, display, outcome, started, {
      ...stop.state,
      lost: `connection to ${host} (${endpoint}) was lost while the command ran: ${lostReason() ?? 'closed'}`,
    });
  }
  const result = framedResult(host, display, outcome, started, stop.state);
  if (exit.signal && !result.signal) result.signal = exit.signal;
  if (exit.code === null && !exit.signal && !stop.state.timedOut && !stop.state.cancelled) {
    result.failed = true;
    result.stderr += `${result.stderr && !result.stderr.endsWith('\n') ? '\n' : ''}the channel closed without an exit status`;
  }
  return result;
}
