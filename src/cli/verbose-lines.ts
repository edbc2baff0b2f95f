import type { RunEvent, RunEventListener } from '../types/events.js';
import type { ConnectionDetail } from '../types/transport.js';

/** How much `-v`, `-vv`, `-vvv` add, in Ansible's order (task results, commands, connection detail). */
export const VERBOSE_HELP = `  -v, -vv, -vvv              more detail from run, up, down and ci (the others accept and ignore it):
                             -v each step's result (exit code, the last lines of its output);
                             -vv also the command that ran; -vvv also the output as it comes and
                             each SSH/WinRM connection: where, as whom, how it logs in (key file,
                             agent or password, never the secret), the host-key or certificate
                             check, and when it opens, is reused and closes`;

const TAIL_LINES = 5;

const tail = (text: string) => text.trimEnd().split('\n').slice(-TAIL_LINES);

/**
 * The lines -v, -vv and -vvv add for one event, from the same events the JSON-lines log carries
 * (the engine has already redacted secrets, and no_log steps send no output): none at level 0.
 * Lines about a step belong to its task (`event.task`); connection lines to the host's current
 * task, which only the renderer knows.
 */
export function verboseLines(level: number, event: RunEvent): string[] {
  if (level < 1) return [];
  if (event.type === 'connection') return level >= 3 ? [connectionLine(event)] : [];
  if (event.type === 'step-output')
    return level >= 3 ? tail(event.data).map((line) => `      ${event.host} ${event.stream}| ${line}`) : [];
  if (event.type !== 'step-end' || event.status === 'skipped') return [];
  const { result } = event;
  // A playbook task is its own step: name it once.
  const what = event.step === event.task ? event.task : `${event.task}: ${event.step}`;
  const lines = [
    `    ${event.host} ${what}: ${event.status}, exit code ${result.exitCode ?? 'none'}${result.signal ? ` (${result.signal})` : ''}`,
  ];
  if (level >= 2 && result.command) lines.push(`      ran: ${result.command}`);
  if (level >= 3) return lines; // the output was shown as it came
  for (const line of result.stdout ? tail(result.stdout) : []) lines.push(`      stdout| ${line}`);
  for (const line of result.stderr ? tail(result.stderr) : []) lines.push(`      stderr| ${line}`);
  return lines;
}

/** One connection event as -vvv prints it (Ansible's `ESTABLISH SSH CONNECTION FOR USER: ...`). */
function connectionLine(event: Extract<RunEvent, { type: 'connection' }>): string {
  const where = event.detail ? ` ${endpoint(event.detail)}` : '';
  const head = `      ${event.host} ${event.detail?.transport ?? 'connection'}`;
  switch (event.state) {
    case 'opened':
      return `${head}: opened${where}${event.detail ? ` (${how(event.detail)})` : ''}`;
    case 'reused':
      return `${head}: reusing${where}`;
    case 'closed':
      return `${head}: closed${where}`;
    case 'failed':
      return `${head}: cannot connect${where}${event.detail ? ` (${how(event.detail)})` : ''}: ${event.message ?? 'failed'}`;
  }
}

const endpoint = (d: ConnectionDetail) => `${d.user}@${d.address}:${d.port}`;

function how(d: ConnectionDetail): string {
  const via = d.via && d.via.length > 0 ? `; via ${d.via.join(' -> ')}` : '';
  return `auth: ${d.auth.join(', then ')}; ${d.hostCheck}${via}`;
}

/** A listener printing {@link verboseLines} (plain-line output); undefined for level 0. */
export function verboseListener(level: number, print: (line: string) => void): RunEventListener | undefined {
  if (level < 1) return undefined;
  return (event: RunEvent) => {
    for (const line of verboseLines(level, event)) print(line);
  };
}
