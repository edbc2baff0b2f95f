import type { WindowsSimulator } from '../../fixtures/windows-sim/simulator.js';
import { type CommandContext, CommandStdin } from '../../fixtures/winrm-server/handler.js';
import { outcomeFromResult } from '../../src/modules/windows/script.js';
import { powershellInvocation, wrapScript } from '../../src/transport/powershell/powershell.js';

/** What a command printed and returned. */
export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command line through a simulated host's handler, as the WinRM server would (no network). */
export async function runLine(
  sim: WindowsSimulator,
  host: string,
  commandLine: string,
  stdin?: Buffer,
): Promise<Ran> {
  const input = new CommandStdin();
  if (stdin) input.push(stdin);
  input.end();
  let stdout = '';
  let stderr = '';
  const ctx: CommandContext = {
    shellId: 's',
    commandId: 'c',
    commandLine,
    args: [],
    env: {},
    user: 'Administrator',
    stdin: input,
    signal: new AbortController().signal,
    stdout: (d) => {
      stdout += d.toString();
    },
    stderr: (d) => {
      stderr += d.toString();
    },
  };
  const code = await sim.handlerFor(host)(ctx);
  return { code, stdout, stderr };
}

/** Runs a PowerShell script the way the transports send it (exec wrapper, -EncodedCommand or stdin bootstrap). */
export function runScript(sim: WindowsSimulator, host: string, script: string): Promise<Ran> {
  const invocation = powershellInvocation(wrapScript(script));
  return runLine(sim, host, invocation.commandLine, invocation.stdinPrefix);
}

/** A module's outcome from what its script printed. */
export const moduleOutcome = (module: string, ran: Ran) =>
  outcomeFromResult(module, {
    command: module,
    exitCode: ran.code,
    stdout: ran.stdout,
    stderr: ran.stderr,
    durationMs: 1,
    failed: ran.code !== 0,
    timedOut: false,
  });
