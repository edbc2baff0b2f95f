import { describe, expect, it } from 'vitest';
import { libvirtGoldenCaptureModule } from '../../../../src/provider/libvirt/modules/golden-capture.js';
import { drive, result } from '../../../modules/drive.js';

// libvirt_golden_capture driven without a hypervisor: the answers are what virsh prints, with the
// time each look took; what is checked is what the module decides and would run next.

const args = {
  uri: 'qemu:///system',
  cluster: 'lab',
  dataDir: '/var/lib/kubemix',
  pool: 'kubemix',
  domain: 'lab.win-1',
  node: 'win-1',
  disk: 'lab.win-1.disk.qcow2',
  golden: 'golden-windows-2022-0123456789abcdef.qcow2',
  timeoutMinutes: 2,
};
const poolXml = '<pool type="dir"><target><path>/var/lib/kubemix/pool</path></target></pool>';
const look = (state: string, seconds = 15) => result(`${state}\n`, { durationMs: seconds * 1000 });

describe('libvirt_golden_capture', () => {
  it('waits while the guest runs, then captures its disk, refreshes the pool and removes the installed guest', () => {
    const { actions, execs, outcome } = drive(libvirtGoldenCaptureModule, args, [
      look('running (booted)'),
      result(), // progress
      look('in shutdown (user)'),
      result(), // progress (the state changed)
      look('shut off (shutdown)', 1),
      result(poolXml),
      result(), // progress
      result(), // capture
      result(), // remove
      result(), // record
    ]);
    expect(outcome).toMatchObject({ failed: false, changed: true });
    const progress = actions
      .filter((a) => a.kind === 'progress')
      .map((a) => (a as { message: string }).message);
    expect(progress[0]).toMatch(
      /^waiting for sysprep to shut lab\.win-1 off \(running \(booted\), 0m15s of 2m00s\)$/,
    );
    expect(progress[1]).toMatch(/in shutdown \(user\)/);
    const capture = execs[execs.length - 2]!;
    expect(capture).toContain(
      "qemu-img convert -f qcow2 -O qcow2 -- '/var/lib/kubemix/pool/lab.win-1.disk.qcow2' '/var/lib/kubemix/pool/.golden-windows-2022-0123456789abcdef.qcow2.lab.partial'",
    );
    expect(capture).toContain("'pool-refresh' 'kubemix'");
    const removal = execs[execs.length - 1]!;
    expect(removal).toContain("'undefine' '--nvram' 'lab.win-1'");
    expect(removal).toContain("'vol-delete' '--pool' 'kubemix' 'lab.win-1.disk.qcow2'");
    const record = actions.at(-1) as {
      kind: 'record';
      update: { resources: Array<{ kind: string; status: string }> };
    };
    expect(record.update.resources.map((r) => `${r.kind} ${r.status}`)).toEqual([
      'domain deleted',
      'volume deleted',
    ]);
  });

  it('captures nothing when the guest stopped another way than its own shutdown', () => {
    for (const state of ['shut off (destroyed)', 'shut off (crashed)', 'crashed (panicked)']) {
      const { execs, outcome } = drive(libvirtGoldenCaptureModule, args, [look(state)]);
      expect(outcome.failed).toBe(true);
      expect(outcome.msg).toMatch(/lab\.win-1 (is shut off|crashed)/);
      expect(execs.some((c) => c.includes('qemu-img'))).toBe(false);
    }
  });

  it('fails at once when the domain is gone', () => {
    const { outcome } = drive(libvirtGoldenCaptureModule, args, [
      look("error: failed to get domain 'lab.win-1'"),
    ]);
    expect(outcome.msg).toMatch(/lab\.win-1 is gone before sysprep shut it off/);
  });

  it('gives up after the time allowed, naming the last state and where sysprep logs its errors', () => {
    const { execs, outcome } = drive(libvirtGoldenCaptureModule, { ...args, timeoutMinutes: 1 }, [
      look('running (booted)', 30),
      result(), // progress
      look('running (booted)', 30),
    ]);
    expect(outcome.failed).toBe(true);
    expect(outcome.msg).toContain(
      'did not shut off within 1m00s after sysprep started (last seen: running (booted))',
    );
    expect(outcome.msg).toContain('setuperr.log');
    expect(execs.some((c) => c.includes('qemu-img'))).toBe(false);
  });

  it('keeps the installed guest when the capture fails (the partial is for down)', () => {
    const { execs, outcome } = drive(libvirtGoldenCaptureModule, args, [
      look('shut off (shutdown)', 1),
      result(poolXml),
      result(), // progress
      result('', { exitCode: 1, stderr: 'qemu-img: No space left on device' }),
    ]);
    expect(outcome).toMatchObject({ failed: true, changed: false });
    expect(outcome.msg).toContain('No space left on device');
    expect(execs.some((c) => c.includes("'undefine'"))).toBe(false);
  });
});
