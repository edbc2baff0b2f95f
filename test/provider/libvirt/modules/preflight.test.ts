import { describe, expect, it } from 'vitest';
import { cachedImage } from '../../../../src/provider/libvirt/image.js';
import { libvirtPreflightModule } from '../../../../src/provider/libvirt/modules/preflight.js';
import { goldenImage } from '../../../../src/provider/libvirt/windows/golden-cache.js';
import { defaultWindowsImage } from '../../../../src/provider/libvirt/windows/guest.js';
import type { CommandResult } from '../../../../src/types/command-result.js';
import { context, driveMatching, result } from '../../../modules/drive.js';

// libvirt_preflight's disk check with the golden image: where the pool lacks the golden volume,
// making it (the first Windows guest's installed disk and its capture) counts besides the guests'
// overlays; where it has it, only the overlays count. Answers are what the shell tools print.

const POOL_PATH = '/var/lib/kubemix/pool';
const GIB_KIB = 1024 * 1024;
const golden = goldenImage({
  windowsIso: cachedImage({ source: 'https://isos.example/ws2022.iso', sha256: 'a'.repeat(64) }, 'iso'),
  version: '2022',
  image: defaultWindowsImage('2022'),
}).volume;
const goldenTest = `test -f '${POOL_PATH}/${golden}'`;

const args = {
  uri: 'qemu:///system',
  cluster: 'lab',
  dataDir: '/var/lib/kubemix',
  pool: 'kubemix',
  cidr: '10.0.0.0/24',
  hypervisors: {
    'hypervisor-01': {
      network: { name: 'lab.hypervisor-01.network', bridge: 'kmxv0000' },
      guests: ['win-01', 'win-02'].map((node) => ({
        domain: `lab.${node}`,
        os: 'windows',
        vcpus: 2,
        memoryMiB: 4096,
        diskGiB: 40,
      })),
      images: [],
      golden: { volume: golden, installDiskGiB: 40 },
    },
  },
};
const hypervisor = context({
  host: {
    name: 'hypervisor-01',
    address: '192.0.2.10',
    os: 'linux',
    connection: 'ssh',
    role: 'hypervisor',
    group: 'hypervisors',
  },
});

/** A healthy hypervisor with `freeGiB` free in the pool's file system; the pool and golden volume as given. */
function run(freeGiB: number, pool: { defined: boolean; golden: boolean }) {
  const answers: Array<[RegExp, CommandResult]> = [
    [/'version'$/, result('Using library: libvirt 9.0.0\nRunning hypervisor: QEMU 7.2.0\n')],
    [
      /^echo "cpus/,
      result(
        `cpus 8\nmemavail_kib ${32 * GIB_KIB}\ndisk_free_kib ${freeGiB * GIB_KIB}\ndisk_dir ${POOL_PATH}\n`,
      ),
    ],
    [
      /^virsh -q -c 'qemu:\/\/\/system' 'pool-dumpxml' 'kubemix'$/,
      pool.defined
        ? result(`<pool type='dir'><target><path>${POOL_PATH}</path></target></pool>`)
        : result('', { exitCode: 1, stderr: 'error: failed to get pool' }),
    ],
    [new RegExp(`^${goldenTest}$`), result('', { exitCode: pool.golden ? 0 : 1 })],
  ];
  return driveMatching(libvirtPreflightModule, args, answers, hypervisor);
}

describe('libvirt_preflight: disk for the golden volume', () => {
  it('counts the installed disk and its capture besides the overlays where the pool lacks the golden volume', () => {
    const { execs, outcome } = run(100, { defined: true, golden: false });
    expect(execs).toContain(goldenTest);
    expect(outcome.failed).toBe(true);
    expect(outcome.inputError).toBe(false);
    expect(outcome.msg).toBe(
      `hypervisor-01 (192.0.2.10): not enough disk in ${POOL_PATH}: the guests' disks may grow to 160 GiB (80 GiB, and 80 GiB to make the golden volume ${golden}: the installed disk and its capture), 100.0 GiB free`,
    );
  });

  it('counts it too where the pool is not made yet (a first run: no golden volume either)', () => {
    const { execs, outcome } = run(100, { defined: false, golden: false });
    expect(execs).not.toContain(goldenTest);
    expect(outcome.failed).toBe(true);
    expect(outcome.msg).toContain('may grow to 160 GiB (80 GiB, and 80 GiB to make the golden volume');
  });

  it('passes with room for both', () => {
    const { execs, outcome } = run(161, { defined: true, golden: false });
    expect(execs).toContain(goldenTest);
    expect(outcome).toMatchObject({ failed: false });
  });

  it('counts only the overlays where the pool has the golden volume', () => {
    const { execs, outcome } = run(100, { defined: true, golden: true });
    expect(execs).toContain(goldenTest);
    expect(outcome).toMatchObject({ failed: false });
    const tight = run(79, { defined: true, golden: true }).outcome;
    expect(tight.msg).toBe(
      `hypervisor-01 (192.0.2.10): not enough disk in ${POOL_PATH}: the guests' disks may grow to 80 GiB, 79.0 GiB free`,
    );
  });
});
