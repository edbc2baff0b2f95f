import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  countRebootEvents,
  type InstallObservation,
  judgeInstall,
  parseAllocationBytes,
  parseDomState,
} from '../../../../src/provider/libvirt/windows/index.js';

// Real virsh output from libvirt's test driver (one connection, so one virsh call).
const virshTest = (commands: string) =>
  execFileSync('virsh', ['-c', 'test:///default', commands], { encoding: 'utf8' }).split('\n\n');

describe('virsh output parsers', () => {
  it('reads domstate --reason as virsh prints it', () => {
    const [running, , stopped] = virshTest('domstate --reason test; destroy test; domstate --reason test');
    expect(parseDomState(running!)).toEqual({ state: 'running', reason: 'unknown' });
    expect(parseDomState(stopped!)).toEqual({ state: 'shut off', reason: 'destroyed' });
    expect(parseDomState('')).toBeUndefined();
  });

  it('reads the Allocation line of domblkinfo', () => {
    const [info] = virshTest('domblkinfo test vda');
    expect(parseAllocationBytes(info!)).toBe(1099511627776);
  });

  it("counts only this domain's reboot events, quoted (libvirt >= 8) or not, with or without timestamps", () => {
    // tools/virsh-domain-event.c prints "event 'reboot' for domain '<name>'" per reset; a real
    // reset is counted against real virsh in windows-guest.integration.test.ts.
    const out = [
      "2026-11-23 16:44:20.958+0000: event 'reboot' for domain 'lab.win-01'",
      "event 'reboot' for domain 'lab.win-01'",
      "event 'reboot' for domain lab.win-01",
      "event 'reboot' for domain 'lab.win-010'",
      "event 'lifecycle' for domain 'lab.win-01': Started Booted",
      'event loop timed out',
      'events received: 3',
    ].join('\n');
    expect(countRebootEvents(out, 'lab.win-01')).toBe(3);
  });
});

describe('judgeInstall', () => {
  const look = (over: Partial<InstallObservation> = {}): InstallObservation => ({
    elapsedMs: 12 * 60_000 + 5_000,
    timeoutMs: 45 * 60_000,
    domain: { state: 'running', reason: 'booted' },
    reboots: 1,
    diskBytes: 6.5 * 2 ** 30,
    guest: { kind: 'silent' },
    ...over,
  });

  it('shows what it sees while waiting: state, reboots, disk, time', () => {
    expect(judgeInstall(look())).toEqual({
      status: 'waiting',
      message:
        'Windows Setup: specialize (domain running (booted), 1 reboot seen, disk 6.5 GiB, 12m05s of 45m00s)',
    });
    expect(judgeInstall(look({ reboots: 0 })).message).toMatch(/^Windows Setup copying the image/);
    expect(judgeInstall(look({ guest: { kind: 'logged-in' }, reboots: 2 })).message).toMatch(
      /^first logon script running/,
    );
  });

  it('is ready only when the first-logon script has finished', () => {
    expect(judgeInstall(look({ guest: { kind: 'first-logon-done' } })).status).toBe('ready');
    expect(judgeInstall(look({ guest: { kind: 'logged-in' } })).status).toBe('waiting');
  });

  it('fails with what was seen when the script failed, the guest stopped, or time ran out', () => {
    expect(
      judgeInstall(
        look({ guest: { kind: 'first-logon-failed', message: 'Add-WindowsCapability: no network\r\n' } }),
      ).message,
    ).toMatch(/^the first-logon script failed: Add-WindowsCapability: no network \(domain running/);
    expect(judgeInstall(look({ domain: { state: 'shut off', reason: 'crashed' } }))).toMatchObject({
      status: 'failed',
      message: expect.stringContaining(
        'the guest stopped during the Windows install (domain shut off (crashed)',
      ),
    });
    const late = judgeInstall(look({ elapsedMs: 45 * 60_000 }));
    expect(late.status).toBe('failed');
    expect(late.message).toContain('did not finish in time: Windows Setup: specialize');
  });

  it('words an overlay on the golden image as specialize (its disk was generalized), never as Windows Setup phases', () => {
    const overlay = (over: Partial<InstallObservation> = {}) => look({ setup: 'specialize', ...over });
    expect(judgeInstall(overlay({ reboots: 0 }))).toEqual({
      status: 'waiting',
      message:
        'Windows specialize from the golden image (domain running (booted), 0 reboots seen, disk 6.5 GiB, 12m05s of 45m00s)',
    });
    expect(judgeInstall(overlay({ reboots: 1 })).message).toMatch(
      /^Windows out-of-box experience and first logon, after specialize from the golden image \(/,
    );
    expect(judgeInstall(overlay({ guest: { kind: 'logged-in' } })).message).toMatch(
      /^first logon script running/,
    );
    expect(judgeInstall(overlay({ domain: { state: 'shut off', reason: 'crashed' } })).message).toMatch(
      /^the guest stopped during Windows specialize from the golden image \(domain shut off \(crashed\)/,
    );
    expect(judgeInstall(overlay({ elapsedMs: 45 * 60_000, reboots: 0 })).message).toMatch(
      /^Windows specialize from the golden image did not finish in time: Windows specialize from the golden image \(/,
    );
    for (const reboots of [0, 1, 2, 3])
      expect(judgeInstall(overlay({ reboots })).message).not.toMatch(
        /Windows Setup|copying the image|install/,
      );
  });

  it('keeps the Windows Setup wording for an install from the ISO, also when asked for explicitly', () => {
    for (const reboots of [0, 1, 2])
      expect(judgeInstall(look({ setup: 'install', reboots }))).toEqual(judgeInstall(look({ reboots })));
    expect(judgeInstall(look({ setup: 'install', reboots: 2 })).message).toMatch(
      /^Windows Setup: out-of-box experience and first logon \(/,
    );
    expect(judgeInstall(look({ domain: { state: 'paused', reason: 'crashed' } })).message).toMatch(
      /^the guest stopped during the Windows install \(/,
    );
  });
});
