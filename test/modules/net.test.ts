import { describe, expect, it } from 'vitest';
import { probeCommand, waitForModule } from '../../src/modules/net/wait-for.js';
import { waitForConnectionModule } from '../../src/modules/net/wait-for-connection.js';
import { context, drive, result } from './drive.js';

describe('wait_for', () => {
  it('polls a port until it opens, sleeping between probes', () => {
    const closed = result('__KMX_CLOSED__\n', { durationMs: 100 });
    const { actions, outcome } = drive(waitForModule, { port: 6443, host: '10.0.0.1', timeout: 10 }, [
      closed,
      result('', { durationMs: 1000 }),
      result('__KMX_OPEN__\n'),
    ]);
    expect(actions[0]).toEqual({
      kind: 'exec',
      command:
        "timeout 5 bash -c 'exec 3<>/dev/tcp/10.0.0.1/6443 && echo __KMX_OPEN__' 2>/dev/null || echo __KMX_CLOSED__",
      timeoutMs: 10_000,
    });
    expect(actions[1]).toEqual({ kind: 'sleep', ms: 1000 });
    expect(outcome).toMatchObject({ changed: false, failed: false, data: { attempts: 2, port: 6443 } });
  });

  it('times out after `timeout` seconds of probes and sleeps', () => {
    const closed = result('__KMX_CLOSED__\n', { durationMs: 500 });
    const slept = result('', { durationMs: 1000 });
    const { outcome } = drive(waitForModule, { port: 1, timeout: 2, msg: 'api never came up' }, [
      closed,
      slept,
      closed,
    ]);
    expect(outcome).toMatchObject({ failed: true, msg: 'api never came up', data: { attempts: 2 } });
  });

  it('waits for a file to contain a regex, or to disappear', () => {
    expect(probeCommand(waitForModule.parseArgs({ path: '/var/log/x', search_regex: 'ready' }))).toBe(
      "if [ -f '/var/log/x' ]; then echo __KMX_PRESENT__; cat '/var/log/x'; else echo __KMX_ABSENT__; fi",
    );
    const early = result('__KMX_PRESENT__\nstarting\n');
    const ready = result('__KMX_PRESENT__\nstarting\nready\n');
    expect(
      drive(waitForModule, { path: '/var/log/x', search_regex: '^ready$' }, [early, result(), ready]).outcome,
    ).toMatchObject({ failed: false, data: { attempts: 2 } });
    expect(
      drive(waitForModule, { path: '/tmp/lock', state: 'absent' }, [result('__KMX_ABSENT__\n')]).outcome
        .failed,
    ).toBe(false);
  });

  it('validates arguments', () => {
    expect(() => waitForModule.parseArgs({})).toThrow('wait_for: give exactly one of "port" or "path"');
    expect(() => waitForModule.parseArgs({ port: 22, host: 'a;b' })).toThrow(
      '"host" must be a host name or IP address',
    );
  });
});

describe('wait_for_connection', () => {
  it('reconnects, then checks that a command runs', () => {
    const { actions, outcome } = drive(waitForConnectionModule, { timeout: 60, delay: 5 }, [
      result('', { durationMs: 3000 }),
      result('ok\n'),
    ]);
    expect(actions).toEqual([
      { kind: 'reconnect', timeoutMs: 60_000, initialDelayMs: 5000 },
      { kind: 'exec', command: 'echo ok', timeoutMs: 30_000 },
    ]);
    expect(outcome).toMatchObject({ changed: false, failed: false, data: { elapsed: 3 } });
  });

  it('fails when the host does not come back, and uses PowerShell on Windows', () => {
    const lost = result('', {
      exitCode: null,
      stderr: 'host did not come back within 1000 ms',
      timedOut: true,
    });
    expect(drive(waitForConnectionModule, { timeout: 1 }, [lost]).outcome).toMatchObject({ failed: true });
    const win = context({ os: 'windows' });
    expect(drive(waitForConnectionModule, {}, [result(), result()], win).execs).toEqual(['Write-Output ok']);
  });
});
