import { shQuote } from '../../quote/index.js';
import { optionalNumber, optionalString, type RawArgs, rejectUnknown } from '../args.js';
import { awaitNewBoot } from '../await-new-boot.js';
import type { Module, ModuleOutcome } from '../types.js';

/** Arguments of `reboot`, in seconds like Ansible. */
export interface RebootArgs {
  rebootTimeout: number;
  preRebootDelay: number;
  postRebootDelay: number;
  msg: string;
  bootTimeCommand: string;
  testCommand: string;
}

const DEFAULT_BOOT_ID = 'cat /proc/sys/kernel/random/boot_id';

/** The background reboot: returns at once so the command's result arrives before the link drops. */
export function rebootCommand(args: RebootArgs): string {
  const delay = Math.max(1, Math.round(args.preRebootDelay));
  const inner = `sleep ${delay}; shutdown -r now ${shQuote(args.msg)} || reboot`;
  return `nohup sh -c ${shQuote(inner)} >/dev/null 2>&1 &`;
}

/**
 * `reboot`: reads the boot id, schedules a reboot in the background, reconnects (expecting the
 * connection to drop), and waits until the boot id differs, then runs the test command.
 */
export const rebootModule: Module<RebootArgs> = {
  name: 'reboot',
  os: 'linux',
  parseArgs(raw: RawArgs) {
    rejectUnknown('reboot', raw, [
      'reboot_timeout',
      'pre_reboot_delay',
      'post_reboot_delay',
      'msg',
      'boot_time_command',
      'test_command',
      'connect_timeout',
    ]);
    return {
      rebootTimeout: optionalNumber('reboot', raw, 'reboot_timeout', 1) ?? 600,
      preRebootDelay: optionalNumber('reboot', raw, 'pre_reboot_delay') ?? 0,
      postRebootDelay: optionalNumber('reboot', raw, 'post_reboot_delay') ?? 0,
      msg: optionalString('reboot', raw, 'msg') ?? 'Reboot initiated by kubemix',
      bootTimeCommand: optionalString('reboot', raw, 'boot_time_command') ?? DEFAULT_BOOT_ID,
      testCommand: optionalString('reboot', raw, 'test_command') ?? 'whoami',
    };
  },
  *run(args, context) {
    const before = yield { kind: 'exec', command: args.bootTimeCommand };
    if (before.failed || before.stdout.trim() === '')
      return {
        changed: false,
        failed: true,
        msg: `reboot: cannot read the boot id (${args.bootTimeCommand}): ${before.stderr.trim()}`,
      };
    const bootId = before.stdout.trim();
    if (context.checkMode)
      return { changed: true, failed: false, msg: 'would reboot', data: { rebooted: false } };
    const started = yield { kind: 'exec', command: rebootCommand(args) };
    // A dropped connection here means the reboot already began: that is success, as in Ansible.
    if (started.failed && started.exitCode !== null)
      return {
        changed: false,
        failed: true,
        msg: `reboot: could not schedule the reboot: ${started.stderr.trim()}`,
      };
    const waited = yield* awaitNewBoot({
      previous: bootId,
      readBoot: { kind: 'exec', command: args.bootTimeCommand },
      limitMs: args.rebootTimeout * 1000,
      initialDelayMs: Math.max(2000, args.preRebootDelay * 1000 + 1000),
      nextDelayMs: () => 2000,
    });
    let elapsedMs = waited.elapsedMs;
    if (waited.kind === 'unreachable')
      return {
        changed: true,
        failed: true,
        msg: `reboot: the host did not come back within ${args.rebootTimeout} s: ${waited.detail}`,
        data: { rebooted: false, elapsed: Math.round(elapsedMs / 1000) },
      };
    if (waited.kind === 'unchanged')
      return {
        changed: true,
        failed: true,
        msg: `reboot: the boot id did not change within ${args.rebootTimeout} s (the host did not reboot)`,
        data: { rebooted: false, elapsed: Math.round(elapsedMs / 1000) },
      };
    if (args.postRebootDelay > 0)
      elapsedMs += (yield { kind: 'sleep', ms: args.postRebootDelay * 1000 }).durationMs;
    const test = yield { kind: 'exec', command: args.testCommand };
    const outcome: ModuleOutcome = {
      changed: true,
      failed: test.failed,
      data: { rebooted: true, elapsed: Math.round((elapsedMs + test.durationMs) / 1000) },
    };
    if (test.failed)
      outcome.msg = `reboot: the host is back but the test command (${args.testCommand}) failed: ${test.stderr.trim()}`;
    return outcome;
  },
};
