import { describe, expect, it } from 'vitest';
import { packageModule } from '../../src/modules/system/package.js';
import { rebootCommand, rebootModule } from '../../src/modules/system/reboot.js';
import { serviceModule } from '../../src/modules/system/service.js';
import { context, drive, result } from './drive.js';

// reboot at generator level: a lab host cannot reboot (its kernel is this machine's, so the boot id
// never changes). The results fed in stand for what the real commands print (a boot id line, whoami).
describe('reboot', () => {
  it('reads the boot id, reboots in the background, reconnects and checks the id changed', () => {
    const { actions, outcome } = drive(rebootModule, { reboot_timeout: 300 }, [
      result('aaaa\n'),
      result(),
      result('', { durationMs: 20_000 }),
      result('bbbb\n'),
      result('root\n'),
    ]);
    expect(actions).toEqual([
      { kind: 'exec', command: 'cat /proc/sys/kernel/random/boot_id' },
      { kind: 'exec', command: rebootCommand(rebootModule.parseArgs({})) },
      { kind: 'reconnect', timeoutMs: 300_000, initialDelayMs: 2000, expectLoss: true },
      { kind: 'exec', command: 'cat /proc/sys/kernel/random/boot_id' },
      { kind: 'exec', command: 'whoami' },
    ]);
    expect(rebootCommand(rebootModule.parseArgs({}))).toBe(
      `nohup sh -c 'sleep 1; shutdown -r now '\\''Reboot initiated by kubemix'\\'' || reboot' >/dev/null 2>&1 &`,
    );
    expect(outcome).toMatchObject({ changed: true, failed: false, data: { rebooted: true, elapsed: 20 } });
  });

  it('reconnects again while the boot id is unchanged, and fails at the timeout', () => {
    const same = result('aaaa\n', { durationMs: 30_000 });
    const back = result('', { durationMs: 30_000 });
    const { actions, outcome } = drive(rebootModule, { reboot_timeout: 100 }, [
      result('aaaa\n'),
      result(),
      back,
      same,
      back,
      result('bbbb\n'),
      result('root\n'),
    ]);
    expect(actions.filter((a) => a.kind === 'reconnect')).toEqual([
      { kind: 'reconnect', timeoutMs: 100_000, initialDelayMs: 2000, expectLoss: true },
      { kind: 'reconnect', timeoutMs: 40_000, initialDelayMs: 2000, expectLoss: true },
    ]);
    expect(outcome).toMatchObject({ changed: true, failed: false, data: { rebooted: true } });
    const timedOut = drive(rebootModule, { reboot_timeout: 50 }, [result('aaaa\n'), result(), back, same]);
    expect(timedOut.outcome).toMatchObject({ changed: true, failed: true });
    expect(timedOut.outcome.msg).toContain('the boot id did not change within 50 s');
  });

  it('treats a dropped connection while scheduling as the reboot starting; does nothing in check mode', () => {
    const dropped = result('', { exitCode: null, stderr: 'connection lost' });
    const { outcome } = drive(rebootModule, {}, [
      result('a\n'),
      dropped,
      result(),
      result('b\n'),
      result('root\n'),
    ]);
    expect(outcome.failed).toBe(false);
    const check = drive(rebootModule, {}, [result('a\n')], context({ checkMode: true }));
    expect(check.outcome).toMatchObject({ changed: true, failed: false, msg: 'would reboot' });
  });
});

// package and service run against the lab's apt-get, dpkg-query and systemctl in
// system.integration.test.ts: fed invented output here, they could only agree with themselves.
describe('package arguments', () => {
  it('refuses names that are not package names, and unknown arguments', () => {
    expect(() => packageModule.parseArgs({ name: 'x; rm -rf /' })).toThrow('is not a valid package name');
    expect(() => packageModule.parseArgs({ name: 'x', force: true })).toThrow();
    expect(packageModule.parseArgs({ name: 'curl,jq', state: 'installed' })).toEqual({
      names: ['curl', 'jq'],
      state: 'present',
      updateCache: false,
      allowDowngrade: false,
      allowChangeHeldPackages: false,
    });
  });
});

describe('service arguments', () => {
  it('needs something to do', () => {
    expect(() => serviceModule.parseArgs({ name: 'x' })).toThrow('give at least one of');
    expect(serviceModule.parseArgs({ name: 'x', enabled: 'yes' })).toEqual({
      name: 'x',
      daemonReload: false,
      enabled: true,
    });
  });
});
