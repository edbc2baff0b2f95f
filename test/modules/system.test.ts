import { describe, expect, it } from 'vitest';
import { packageModule, packageScript } from '../../src/modules/system/package.js';
import { rebootCommand, rebootModule } from '../../src/modules/system/reboot.js';
import { serviceModule, serviceScript } from '../../src/modules/system/service.js';
import { context, drive, result } from './drive.js';

// Generator-level only: no real reboot, package manager or systemd here. The lead runs them on lab hosts.
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

describe('package', () => {
  it('probes apt or dnf in the same command and installs only what is missing', () => {
    const args = packageModule.parseArgs({ name: ['curl', 'jq=1.6-2'], state: 'present' });
    const script = packageScript(args, false);
    expect(script).toContain('if command -v apt-get >/dev/null 2>&1; then mgr=apt; elif command -v dnf');
    expect(script).toContain(
      `for p in 'curl' 'jq=1.6-2'; do if ! installed "$p"; then todo="$todo $p"; fi; done`,
    );
    expect(script).toContain('apt-get install -y -q --no-install-recommends $todo');
    const { outcome } = drive(packageModule, { name: 'curl,jq' }, [
      result('__KMX_MGR__ apt\n__KMX_TODO__ jq\n'),
    ]);
    expect(outcome).toMatchObject({
      changed: true,
      failed: false,
      msg: 'installed: jq',
      data: { manager: 'apt', packages: ['jq'] },
    });
    expect(
      drive(packageModule, { name: 'curl' }, [result('__KMX_MGR__ dnf\n__KMX_TODO__\n')]).outcome,
    ).toMatchObject({ changed: false, msg: 'nothing to do' });
  });

  it('removes and upgrades; check mode only probes', () => {
    expect(packageScript(packageModule.parseArgs({ name: 'x', state: 'absent' }), false)).toContain(
      'apt-get remove -y -q $todo',
    );
    expect(packageScript(packageModule.parseArgs({ name: 'x', state: 'latest' }), false)).toContain(
      `if ! installed "$p" || upgradable "$p"`,
    );
    const check = packageScript(packageModule.parseArgs({ name: 'x', update_cache: true }), true);
    expect(check).not.toContain('apt-get install');
    expect(check).not.toContain('apt-get update');
    expect(
      drive(
        packageModule,
        { name: 'x' },
        [result('__KMX_MGR__ apt\n__KMX_TODO__ x\n')],
        context({ checkMode: true }),
      ).outcome.msg,
    ).toBe('would be installed: x');
  });

  it('fails with the manager error and validates names', () => {
    const failed = drive(packageModule, { name: 'x' }, [
      result('', { exitCode: 3, stderr: 'package: no supported package manager found (apt-get or dnf)\n' }),
    ]);
    expect(failed.outcome).toMatchObject({
      failed: true,
      msg: 'package: no supported package manager found (apt-get or dnf)',
    });
    expect(() => packageModule.parseArgs({ name: 'x; rm -rf /' })).toThrow('is not a valid package name');
  });
});

describe('service', () => {
  it('starts and enables only when needed', () => {
    const script = serviceScript(
      serviceModule.parseArgs({ name: 'containerd', state: 'started', enabled: true }),
      false,
    );
    expect(script).toContain(
      "systemctl is-enabled --quiet 'containerd' 2>/dev/null || kmx_do systemctl enable 'containerd'",
    );
    expect(script).toContain(
      "systemctl is-active --quiet 'containerd' || kmx_do systemctl start 'containerd'",
    );
    expect(
      drive(serviceModule, { name: 'containerd', state: 'started' }, [result('')]).outcome,
    ).toMatchObject({ changed: false, failed: false });
    expect(
      drive(serviceModule, { name: 'kubelet', state: 'restarted' }, [result('__KUBEMIX_CHANGED__\n')])
        .outcome,
    ).toMatchObject({ changed: true });
  });

  it('stops, reloads the daemon, and says when systemd is missing', () => {
    const script = serviceScript(
      serviceModule.parseArgs({ name: 'x', state: 'stopped', enabled: false, daemon_reload: true }),
      false,
    );
    expect(script).toContain('systemctl daemon-reload');
    expect(script).toContain("if systemctl is-active --quiet 'x'; then kmx_do systemctl stop 'x'; fi");
    const missing = drive(serviceModule, { name: 'x', state: 'started' }, [
      result('', {
        exitCode: 1,
        stderr: 'service: systemctl not found (only systemd hosts are supported)\n',
      }),
    ]);
    expect(missing.outcome).toMatchObject({
      failed: true,
      msg: 'service: systemctl not found (only systemd hosts are supported)',
    });
    expect(() => serviceModule.parseArgs({ name: 'x' })).toThrow('give at least one of');
  });
});
