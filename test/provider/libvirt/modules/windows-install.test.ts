import { describe, expect, it } from 'vitest';
import { libvirtWindowsInstallModule } from '../../../../src/provider/libvirt/modules/windows-install.js';
import { drive, result } from '../../../modules/drive.js';

// libvirt_windows_install driven with what one look prints on the hypervisor: the sections of
// its script around virsh's own output (domstate --reason, domblkinfo, event --loop).

const ARGS = {
  uri: 'qemu:///system',
  domain: 'lab.win-01',
  disk: 'sda',
  address: '192.168.130.20',
  port: 5985,
  timeoutMinutes: 45,
};

const look = (port: '' | 'open') =>
  result(
    [
      '# state',
      'running (booted)',
      '# disk',
      'Capacity:       64424509440',
      'Allocation:     7000000000',
      'Physical:       7000000000',
      '# port',
      port,
      '# events',
      '',
    ].join('\n'),
    { durationMs: 15_000 },
  );

/** What the executor hands back for a progress line (the module ignores it). */
const PROGRESS_SHOWN = result('');

describe('libvirt_windows_install', () => {
  it('reports an install from the ISO as Windows Setup phases (the default)', () => {
    const { actions, outcome } = drive(libvirtWindowsInstallModule, ARGS, [
      look(''),
      PROGRESS_SHOWN,
      look('open'),
    ]);
    const progress = actions.filter((a) => a.kind === 'progress').map((a) => a.message);
    expect(progress).toEqual([
      expect.stringMatching(/^Windows Setup copying the image \(domain running \(booted\), 0 reboots seen/),
    ]);
    expect(outcome).toMatchObject({
      failed: false,
      msg: expect.stringMatching(/^Windows answers on its connection port/),
    });
  });

  it('reports an overlay on the golden image as specialize, never as Windows Setup copying an image', () => {
    const { actions, outcome } = drive(libvirtWindowsInstallModule, { ...ARGS, setup: 'specialize' }, [
      look(''),
      PROGRESS_SHOWN,
      look('open'),
    ]);
    const progress = actions.filter((a) => a.kind === 'progress').map((a) => a.message);
    expect(progress).toEqual([
      expect.stringMatching(
        /^Windows specialize from the golden image \(domain running \(booted\), 0 reboots seen/,
      ),
    ]);
    expect(progress.join('\n')).not.toContain('Windows Setup');
    expect(outcome).toMatchObject({ failed: false });
  });

  it('refuses a setup kind it does not know, naming the field', () => {
    expect(() => libvirtWindowsInstallModule.parseArgs({ ...ARGS, setup: '' })).toThrow(
      'libvirt_windows_install: setup must be one of install, specialize, got ""',
    );
  });
});
