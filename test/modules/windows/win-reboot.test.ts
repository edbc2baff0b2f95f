import { describe, expect, it } from 'vitest';
import { parseModuleHeader } from '../../../src/modules/windows/script.js';
import { DEFAULT_BOOT_TIME_COMMAND, winRebootModule } from '../../../src/modules/windows/win-reboot.js';
import { drive, result } from '../drive.js';
import { resultOf, windowsContext } from './helpers.js';

const ctx = windowsContext();
const step = (command: string) => parseModuleHeader(command)?.args['action'];

describe('win_reboot', () => {
  it('reads the boot time, schedules shutdown /r, reconnects expecting loss, polls until the boot time changes', () => {
    const { actions, outcome } = drive(
      winRebootModule,
      { pre_reboot_delay: 0, reboot_timeout: 60 },
      [
        result('133000000000000000\r\n'),
        resultOf({ changed: true }),
        result('', { durationMs: 3000 }),
        result('133000000000000000\r\n'),
        result('', { durationMs: 2000 }),
        result('133000000099990000\r\n'),
        result('win1\\admin\r\n'),
      ],
      ctx,
    );
    expect(actions.map((a) => (a.kind === 'exec' ? step(a.command) : a.kind))).toEqual([
      'boot_time',
      'schedule',
      'reconnect',
      'boot_time',
      'reconnect',
      'boot_time',
      'test',
    ]);
    expect(actions[0]).toMatchObject({ command: expect.stringContaining(DEFAULT_BOOT_TIME_COMMAND) });
    expect(actions[1]).toMatchObject({
      command: expect.stringContaining('& shutdown.exe /r /t $kmDelay /c $kmMsg'),
    });
    expect(actions[2]).toEqual({
      kind: 'reconnect',
      timeoutMs: 60_000,
      initialDelayMs: 1000,
      expectLoss: true,
    });
    // Backoff between polls, and the remaining time shrinks.
    expect(actions[4]).toEqual({
      kind: 'reconnect',
      timeoutMs: 56_990,
      initialDelayMs: 2000,
      expectLoss: true,
    });
    expect(outcome).toMatchObject({
      changed: true,
      failed: false,
      data: { rebooted: true, boot_time: '133000000099990000' },
    });
  });

  it('treats a lost connection while scheduling as the restart beginning', () => {
    const { outcome } = drive(
      winRebootModule,
      {},
      [
        result('1\r\n'),
        result('', { exitCode: null, stderr: 'connection reset' }),
        result(),
        result('2\r\n'),
        result('ok\r\n'),
      ],
      ctx,
    );
    expect(outcome).toMatchObject({ changed: true, failed: false });
  });

  it('fails clearly when shutdown refuses, when the host never comes back, and when the boot time never changes', () => {
    const refused = drive(
      winRebootModule,
      {},
      [
        result('1\r\n'),
        resultOf({ failed: true, msg: 'shutdown /r failed with exit code 5: Access is denied.' }),
      ],
      ctx,
    );
    expect(refused.outcome).toMatchObject({
      failed: true,
      msg: 'win_reboot: could not schedule the restart: shutdown /r failed with exit code 5: Access is denied.',
    });
    const gone = drive(
      winRebootModule,
      { reboot_timeout: 3 },
      [
        result('1\r\n'),
        resultOf({ changed: true }),
        result('', {
          exitCode: null,
          failed: true,
          timedOut: true,
          stderr: 'host did not come back within 3000 ms: connect ECONNREFUSED',
          durationMs: 3000,
        }),
      ],
      ctx,
    );
    expect(gone.outcome).toMatchObject({ changed: true, failed: true, data: { rebooted: false } });
    expect(gone.outcome.msg).toBe(
      'win_reboot: timed out after 3 s waiting for the host to come back: host did not come back within 3000 ms: connect ECONNREFUSED',
    );
    const same = drive(
      winRebootModule,
      { reboot_timeout: 5 },
      [
        result('1\r\n'),
        resultOf({ changed: true }),
        result('', { durationMs: 3000 }),
        result('1\r\n', { durationMs: 2500 }),
      ],
      ctx,
    );
    expect(same.outcome.msg).toBe(
      'win_reboot: timed out after 5 s: the boot time is still 1 (the host did not restart)',
    );
  });

  it('waits post_reboot_delay, retries the test command, and only reads the boot time in check mode', () => {
    const { actions, outcome } = drive(
      winRebootModule,
      { post_reboot_delay: 2, test_command: 'Get-Service kubelet' },
      [
        result('1\r\n'),
        resultOf({ changed: true }),
        result(),
        result('2\r\n'),
        result(),
        result('', { exitCode: 1, stderr: 'not yet' }),
        result(),
        result('Running\r\n'),
      ],
      ctx,
    );
    expect(actions.filter((a) => a.kind === 'sleep')).toEqual([
      { kind: 'sleep', ms: 2000 },
      { kind: 'sleep', ms: 1000 },
    ]);
    expect(parseModuleHeader((actions.at(-1) as { command: string }).command)?.args).toEqual({
      action: 'test',
      test_command: 'Get-Service kubelet',
    });
    expect(outcome.failed).toBe(false);
    const dry = drive(winRebootModule, {}, [result('1\r\n')], windowsContext({ checkMode: true }));
    expect(dry.outcome).toMatchObject({ changed: true, failed: false, data: { rebooted: false } });
  });
});
