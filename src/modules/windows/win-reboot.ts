import { optionalNumber, optionalString, type RawArgs, rejectUnknown } from '../args.js';
import { awaitNewBoot } from '../await-new-boot.js';
import type { Module, ModuleOutcome, ModuleRun } from '../types.js';
import { moduleHeader, moduleScript, parseResultLine } from './script.js';

/** Arguments of `win_reboot`, in seconds like Ansible. */
export interface WinRebootArgs {
  preRebootDelay: number;
  postRebootDelay: number;
  rebootTimeout: number;
  msg: string;
  testCommand: string;
  bootTimeCommand: string;
}

/** Ansible's default boot_time_command: LastBootUpTime as a FILETIME number, stable until the next boot. */
export const DEFAULT_BOOT_TIME_COMMAND =
  '(Get-CimInstance -ClassName Win32_OperatingSystem -Property LastBootUpTime).LastBootUpTime.ToFileTime()';

/** Parses win_reboot arguments (connect_timeout is accepted; the transport's own connect timeout applies). */
export function parseWinRebootArgs(raw: RawArgs): WinRebootArgs {
  rejectUnknown('win_reboot', raw, [
    'pre_reboot_delay',
    'post_reboot_delay',
    'reboot_timeout',
    'connect_timeout',
    'msg',
    'test_command',
    'boot_time_command',
  ]);
  return {
    preRebootDelay: Math.round(optionalNumber('win_reboot', raw, 'pre_reboot_delay') ?? 2),
    postRebootDelay: optionalNumber('win_reboot', raw, 'post_reboot_delay') ?? 0,
    rebootTimeout: optionalNumber('win_reboot', raw, 'reboot_timeout', 1) ?? 600,
    msg: optionalString('win_reboot', raw, 'msg') ?? 'Reboot initiated by kubemix',
    testCommand: optionalString('win_reboot', raw, 'test_command') ?? 'whoami',
    bootTimeCommand: optionalString('win_reboot', raw, 'boot_time_command') ?? DEFAULT_BOOT_TIME_COMMAND,
  };
}

/** Reads the boot time (the header tells a simulator which step this is). */
export function bootTimeScript(args: WinRebootArgs): string {
  return [
    moduleHeader('win_reboot', { action: 'boot_time' }),
    "$ErrorActionPreference = 'Stop'",
    args.bootTimeCommand,
  ].join('\n');
}

/**
 * Schedules the restart with `shutdown /r /t N /c MSG`. A shutdown already scheduled (error 1190)
 * is aborted and replaced, as Ansible does.
 */
export function scheduleRebootScript(args: WinRebootArgs): string {
  return moduleScript({
    module: 'win_reboot',
    header: { action: 'schedule', pre_reboot_delay: args.preRebootDelay, msg: args.msg },
    vars: { kmDelay: args.preRebootDelay, kmMsg: args.msg },
    body: [
      '$kmOut = & shutdown.exe /r /t $kmDelay /c $kmMsg 2>&1',
      'if ($LASTEXITCODE -eq 1190) {',
      '  & shutdown.exe /a 2>&1 | Out-Null',
      '  $kmOut = & shutdown.exe /r /t $kmDelay /c $kmMsg 2>&1',
      '}',
      'if ($LASTEXITCODE -ne 0) { KmFail "shutdown /r failed with exit code $($LASTEXITCODE): $kmOut" }',
      '$kmResult.changed = $true',
    ],
  });
}

/** Runs the test command that says the host is ready for management. */
export function testCommandScript(args: WinRebootArgs): string {
  return [
    moduleHeader('win_reboot', { action: 'test', test_command: args.testCommand }),
    args.testCommand,
  ].join('\n');
}

const MAX_POLL_DELAY_MS = 10_000;

/**
 * The Ansible way to reboot Windows: read the boot time, schedule the restart, treat a lost
 * connection as success, reconnect and poll the boot time with backoff until it changes, wait
 * post_reboot_delay, then retry the test command until it succeeds; all within reboot_timeout.
 */
export function* rebootFlow(args: WinRebootArgs, check = false): ModuleRun {
  const before = yield { kind: 'exec', command: bootTimeScript(args), display: 'win_reboot: read boot time' };
  const bootTime = before.stdout.trim();
  if (before.failed || bootTime === '')
    return {
      changed: false,
      failed: true,
      msg: `win_reboot: cannot read the boot time (${args.bootTimeCommand}): ${before.stderr.trim() || `exit code ${before.exitCode}`}`,
    };
  if (check) return { changed: true, failed: false, msg: 'would reboot', data: { rebooted: false } };
  const scheduled = yield {
    kind: 'exec',
    command: scheduleRebootScript(args),
    display: `win_reboot: shutdown /r /t ${args.preRebootDelay}`,
  };
  // A lost connection (no exit code) means the restart already began: success, as in Ansible.
  if (scheduled.failed && scheduled.exitCode !== null) {
    const reported = parseResultLine(scheduled.stdout);
    const why =
      typeof reported?.['msg'] === 'string'
        ? reported['msg']
        : scheduled.stderr.trim() || `exit code ${scheduled.exitCode}`;
    return { changed: false, failed: true, msg: `win_reboot: could not schedule the restart: ${why}` };
  }
  const limitMs = args.rebootTimeout * 1000;
  const waited = yield* awaitNewBoot({
    previous: bootTime,
    readBoot: { kind: 'exec', command: bootTimeScript(args), display: 'win_reboot: read boot time' },
    limitMs,
    initialDelayMs: Math.max(1000, (args.preRebootDelay + 1) * 1000),
    nextDelayMs: (delay) => Math.min(delay * 2, MAX_POLL_DELAY_MS),
  });
  let elapsedMs = waited.elapsedMs;
  if (waited.kind === 'unreachable')
    return {
      changed: true,
      failed: true,
      msg: `win_reboot: timed out after ${args.rebootTimeout} s waiting for the host to come back: ${waited.detail}`,
      data: { rebooted: false, elapsed: Math.round(elapsedMs / 1000) },
    };
  if (waited.kind === 'unchanged')
    return {
      changed: true,
      failed: true,
      msg: `win_reboot: timed out after ${args.rebootTimeout} s: the boot time is still ${bootTime} (the host did not restart)`,
      data: { rebooted: false, elapsed: Math.round(elapsedMs / 1000) },
    };
  const lastBootTime = waited.boot;
  if (args.postRebootDelay > 0)
    elapsedMs += (yield { kind: 'sleep', ms: args.postRebootDelay * 1000 }).durationMs;
  let delayMs = 1000;
  for (;;) {
    const test = yield {
      kind: 'exec',
      command: testCommandScript(args),
      display: `win_reboot: test ${args.testCommand}`,
    };
    elapsedMs += test.durationMs;
    const data = { rebooted: true, elapsed: Math.round(elapsedMs / 1000), boot_time: lastBootTime };
    if (!test.failed) return { changed: true, failed: false, data } satisfies ModuleOutcome;
    if (elapsedMs >= 2 * limitMs)
      return {
        changed: true,
        failed: true,
        msg: `win_reboot: the host is back but the test command (${args.testCommand}) kept failing: ${test.stderr.trim() || `exit code ${test.exitCode}`}`,
        data,
      };
    elapsedMs += (yield { kind: 'sleep', ms: delayMs }).durationMs;
    delayMs = Math.min(delayMs * 2, MAX_POLL_DELAY_MS);
  }
}

/** `win_reboot`: reboots a Windows host and waits until it is back and answers the test command. */
export const winRebootModule: Module<WinRebootArgs> = {
  name: 'win_reboot',
  os: 'windows',
  parseArgs: parseWinRebootArgs,
  run: (args, context) => rebootFlow(args, context.checkMode),
};
