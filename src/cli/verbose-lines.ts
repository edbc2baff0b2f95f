import type { RunEvent, RunEventListener } from '../types/events.js';

/** How much `-v`, `-vv`, `-vvv` add, in Ansible's order (task results, commands, more). */
export const VERBOSE_HELP = `  -v, -vv, -vvv              more detail from run, up and down (the others accept and ignore it):
                             -v each step's result (exit code, the last lines of its output);
                             -vv also the command that ran; -vvv also the output as it comes`;

const TAIL_LINES = 5;

const tail = (text: string) => text.trimEnd().split('\n').slice(-TAIL_LINES);

/**
 * Lines that -v, -vv and -vvv add to a run's output, from the same events the JSON-lines log
 * carries (the engine has already redacted secrets, and no_log steps send no output). Undefined
 * for level 0. Connection detail (SSH/WinRM handshakes) is not shown: the transports report no
 * events for it.
 */
export function verboseListener(level: number, print: (line: string) => void): RunEventListener | undefined {
  if (level < 1) return undefined;
  return (event: RunEvent) => {
    if (event.type === 'step-output' && level >= 3) {
      for (const line of tail(event.data)) print(`      ${event.host} ${event.stream}| ${line}`);
    }
    if (event.type !== 'step-end' || event.status === 'skipped') return;
    const { result } = event;
    // A playbook task is its own step: name it once.
    const what = event.step === event.task ? event.task : `${event.task}: ${event.step}`;
    print(
      `    ${event.host} ${what}: ${event.status}, exit code ${result.exitCode ?? 'none'}${result.signal ? ` (${result.signal})` : ''}`,
    );
    if (level >= 2 && result.command) print(`      ran: ${result.command}`);
    if (level >= 3) return; // the output was shown as it came
    for (const line of result.stdout ? tail(result.stdout) : []) print(`      stdout| ${line}`);
    for (const line of result.stderr ? tail(result.stderr) : []) print(`      stderr| ${line}`);
  };
}
