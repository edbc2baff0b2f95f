import type { CommandResult } from '../../types/command-result.js';
import { failedResult } from '../../types/command-result.js';
import type { ExecRequest } from '../types.js';
import { decodeClixml } from './clixml.js';
import { powershellInvocation, wrapScript } from './powershell.js';
import { type RunOptions, type RunOutcome, toResult } from './run-types.js';

/** Runs one command line on a Windows host and collects its outcome (a WinRM shell, an SSH exec channel). */
export type PowerShellRunner = (options: RunOptions) => Promise<RunOutcome>;

/** The stdout/stderr callbacks of a run that streams its output; CLIXML stderr is decoded. */
export function streamOutput(onOutput: ExecRequest['onOutput']): Pick<RunOptions, 'onStdout' | 'onStderr'> {
  if (!onOutput) return {};
  return {
    onStdout: (data: Buffer) => onOutput({ stream: 'stdout', data: data.toString('utf8') }),
    onStderr: (data: Buffer) => onOutput({ stream: 'stderr', data: decodeClixml(data.toString('utf8')) }),
  };
}

/**
 * The PowerShell exec of both Windows transports (WinRM and SSH to a PowerShell shell):
 * `request.command` wrapped to stop at the first error and pass its exit code on, env and cwd
 * applied, scripts too long for a command line sent over stdin ahead of the caller's stdin.
 * `become` is refused with `becomeRefusal` (each transport says what to do instead).
 */
export async function execPowerShell(
  request: ExecRequest,
  transport: { host: string; becomeRefusal: string; run: PowerShellRunner },
): Promise<CommandResult> {
  const { host } = transport;
  const display = request.display ?? request.command;
  if (request.become) return failedResult(display, transport.becomeRefusal, 0, host);
  let script: string;
  try {
    script = wrapScript(request.command, {
      ...(request.env ? { env: request.env } : {}),
      ...(request.cwd !== undefined ? { cwd: request.cwd } : {}),
    });
  } catch (error) {
    return failedResult(display, (error as Error).message, 0, host);
  }
  const invocation = powershellInvocation(script);
  const userStdin = request.stdin === undefined ? undefined : Buffer.from(request.stdin);
  const stdin =
    invocation.stdinPrefix || userStdin
      ? Buffer.concat([invocation.stdinPrefix ?? Buffer.alloc(0), userStdin ?? Buffer.alloc(0)])
      : undefined;
  const outcome = await transport.run({
    commandLine: invocation.commandLine,
    ...(stdin ? { stdin } : {}),
    ...(request.timeoutMs !== undefined ? { timeoutMs: request.timeoutMs } : {}),
    ...(request.signal ? { signal: request.signal } : {}),
    ...streamOutput(request.onOutput),
  });
  return toResult(host, display, outcome, true);
}
