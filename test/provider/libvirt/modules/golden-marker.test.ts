import { describe, expect, it } from 'vitest';
import {
  libvirtGoldenMarkModule,
  parseMarker,
} from '../../../../src/provider/libvirt/modules/golden-marker.js';
import { drive, result } from '../../../modules/drive.js';

// The golden image marker driven without a hypervisor; the answers are what virsh 9.0 prints
// (taken from `virsh -c test:///default metadata ...`). golden-resume.integration.test.ts sets and
// reads it on a real libvirtd.

const args = { uri: 'qemu:///system', domain: 'lab.win-1' };

describe('libvirt_golden_mark', () => {
  it("sets the marker in the domain's persistent definition, under kubemix's golden namespace", () => {
    const { execs, outcome } = drive(libvirtGoldenMarkModule, args, [result()]);
    expect(outcome).toMatchObject({ failed: false, changed: true });
    expect(execs).toEqual([
      `virsh -q -c 'qemu:///system' 'metadata' 'lab.win-1' 'https://kubemix.dev/libvirt/golden/1' '--key' 'kubemix' '--set' '<golden state="generalizing"/>' '--config' >/dev/null`,
    ]);
  });

  it('fails naming the domain and why', () => {
    const { outcome } = drive(libvirtGoldenMarkModule, args, [
      result('', { exitCode: 1, stderr: "error: failed to get domain 'lab.win-1'" }),
    ]);
    expect(outcome).toMatchObject({
      failed: true,
      msg: "cannot mark lab.win-1 as being generalized: error: failed to get domain 'lab.win-1'",
    });
  });

  it('refuses arguments it does not know', () => {
    expect(() => libvirtGoldenMarkModule.parseArgs({ ...args, pool: 'kubemix' })).toThrow(/pool/);
  });
});

describe('parseMarker', () => {
  it('reads the marker, its absence, and any other failure as a reason', () => {
    expect(parseMarker(result('<golden state="generalizing"/>\n'))).toBe(true);
    expect(
      parseMarker(
        result('', {
          exitCode: 1,
          stderr: 'error: metadata not found: Requested metadata element is not present',
        }),
      ),
    ).toBe(false);
    expect(
      parseMarker(result('', { exitCode: 1, stderr: "error: failed to get domain 'lab.win-1'" })),
    ).toEqual({
      error: "error: failed to get domain 'lab.win-1'",
    });
  });
});
