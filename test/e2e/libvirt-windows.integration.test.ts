import { execFileSync } from 'node:child_process';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leftovers } from '../../fixtures/libvirt/lab.js';
import { ensureLibvirtd, type TestLibvirtd, virsh } from '../../fixtures/libvirt/libvirtd.js';
import type { TestCluster } from '../../fixtures/libvirt/test-cluster.js';
import {
  removeWindowsTestCluster,
  type WindowsTestCluster,
  writeWindowsTestSpec,
} from '../../fixtures/libvirt/windows-spec.js';
import { readSecrets } from '../../src/engine/index.js';
import { kubemix, settleKubemixRuns, tempClusterDir } from './helpers.js';

// A Windows worker on libvirt, as far as it can go without Windows: kubemix generates the
// Administrator password into secrets.json, writes Autounattend.xml and the first-logon script
// onto a 0600 config ISO, defines the Windows machine (q35, SATA CD-ROMs with the Windows ISO and
// the config ISO, Hyper-V enlightenments this QEMU offers) and starts it in real QEMU (TCG). The
// "Windows ISO" is a small ISO made here that boots nothing, so the install wait watches a domain
// that never installs: it reports what it sees and gives up when the spec's time runs out. No
// Windows stand-in guest exists: nothing here proves that Windows Setup accepts the answer file.
// The Linux controller's disk is a STAND-IN too (fixtures/libvirt/windows-spec.ts: notLinuxImage).
// A fresh name, network and pool per run: other worktrees may run this test on the same libvirtd.
let test: WindowsTestCluster | undefined;
let cluster: TestCluster;
const configVolume = () => `${cluster.name}.windows-01.config.iso`;
let libvirtd: TestLibvirtd;
let spec: string;
let clusterDir: string;
let password: string;
let created: Awaited<ReturnType<typeof kubemix>>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  isArray: (n) => n === 'disk',
});

beforeAll(async () => {
  libvirtd = await ensureLibvirtd();
  test = await writeWindowsTestSpec({ stem: 'kmxwin', dir: await tempClusterDir(), windows: 1 });
  ({ cluster, spec, clusterDir } = test);
  created = await kubemix(['up', spec, '--cluster-dir', clusterDir, '--stop-after', 'create-hosts']);
  const secrets = await readSecrets(clusterDir);
  const passwords = secrets['hypervisor-01']?.['libvirt_windows_passwords'] as
    | Record<string, string>
    | undefined;
  password = passwords?.['windows-01'] ?? '';
}, 20 * 60_000);

afterAll(async () => {
  await settleKubemixRuns();
  await removeWindowsTestCluster(test, (t) => kubemix(['down', t.spec, '--cluster-dir', t.clusterDir]));
  await libvirtd?.stop();
}, 10 * 60_000);

describe('a Windows guest on libvirt, up to its domain running in QEMU', () => {
  it('generates the Administrator password into secrets.json only', async () => {
    expect(created.exitCode, `${created.stdout}\n${created.stderr}`).toBe(0);
    expect(password).toMatch(/^[A-Za-z0-9#+\-.=@_]{24}$/);
    expect((await stat(join(clusterDir, 'secrets.json'))).mode & 0o777).toBe(0o600);
    expect(await readFile(join(clusterDir, 'state.json'), 'utf8')).not.toContain(password);
    for (const log of await readdir(join(clusterDir, 'runs')))
      expect(await readFile(join(clusterDir, 'runs', log), 'utf8')).not.toContain(password);
    expect(created.stdout + created.stderr).not.toContain(password);
  });

  it('writes Autounattend.xml with that password and the first-logon script onto a 0600 config ISO', async () => {
    const path = (await virsh('vol-path', '--pool', cluster.pool, configVolume())).trim();
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const listing = execFileSync('isoinfo', ['-J', '-f', '-i', path], { encoding: 'utf8' });
    expect(listing.split('\n').filter(Boolean).sort()).toEqual([
      '/Autounattend.xml',
      '/kubemix',
      '/kubemix/first-logon.ps1',
    ]);
    const unattend = execFileSync('isoinfo', ['-J', '-i', path, '-x', '/Autounattend.xml'], {
      encoding: 'utf8',
    });
    // Compared without printing the password on failure.
    expect(unattend.includes(`<Value>${password}</Value>`)).toBe(true);
    expect(unattend).toContain('<ComputerName>windows-01</ComputerName>');
    // The staging directory of the answer files is gone from the hypervisor.
    expect(await readdir(join(cluster.dataDir, 'clusters', cluster.name))).not.toContain('windows-01.config');
  });

  it('defines and starts the Windows machine: q35, local time, Hyper-V, SATA CD-ROMs, e1000e', async () => {
    const xml = await virsh('dumpxml', `${cluster.name}.windows-01`);
    expect(xml.includes(password)).toBe(false);
    const domain = parser.parse(xml).domain;
    expect(domain['@type']).toBe('qemu');
    expect(domain.os.type['@machine']).toMatch(/q35/);
    expect(domain.clock['@offset']).toBe('localtime');
    expect(domain.features.hyperv.spinlocks['@state']).toBe('on');
    expect(domain.cpu['@mode']).toBe('maximum');
    expect(domain.devices.interface.model['@type']).toBe('e1000e');
    expect(
      domain.devices.disk.map((d: Record<string, Record<string, string>>) => [
        d['@device'],
        d['target']?.['@bus'],
        d['source']?.['@volume'],
      ]),
    ).toEqual([
      ['disk', 'sata', `${cluster.name}.windows-01.disk.qcow2`],
      ['cdrom', 'sata', expect.stringMatching(/^base-sha256-[0-9a-f]{16}\.iso$/)],
      ['cdrom', 'sata', configVolume()],
    ]);
    expect((await virsh('domstate', `${cluster.name}.windows-01`)).trim()).toBe('running');
  });

  // kubemix's own limit (1 minute of looks) is what this checks; the test's limit only guards a
  // hang. The controller boots a STAND-IN disk (nothing): wait-for-hosts gives up on its connection
  // at the spec's one minute of boot time, beside the Windows guest's install watch. On a timeout
  // the run is stopped (SIGTERM), so it never holds the cluster's lock.
  it('watches the install from the hypervisor with progress lines, and gives up at the time the spec allows', {
    timeout: 15 * 60_000,
  }, async ({ signal }) => {
    const waited = await kubemix(
      ['up', spec, '--cluster-dir', clusterDir, '--stop-after', 'wait-for-hosts'],
      {},
      { signal },
    );
    expect(waited.exitCode, waited.stdout).toBe(1);
    expect(waited.stdout).toMatch(
      /WAIT {2}wait-for-hosts windows-01: Windows Setup copying the image \(domain running \(booted\), 0 reboots seen, disk [\d.]+ GiB, 0m\d\ds of 1m00s\)/,
    );
    expect(waited.stderr + waited.stdout).toMatch(
      /the Windows install did not finish in time: Windows Setup copying the image \(domain running \(booted\), 0 reboots seen.*\); raise provider\.windows\.installTimeoutMinutes/,
    );
    // The controller's stand-in disk boots nothing: its connection wait ends at the spec's time.
    expect(waited.stdout + waited.stderr).toMatch(
      /task wait-for-hosts failed on host controller-01: step "wait for connection"[^\n]*host did not come back within 60000 ms/,
    );
    expect(waited.stdout).not.toContain(password);
  });

  it('kubemix down removes the guest, its disks and config ISO, the cached ISO: nothing is left', async () => {
    const down = await kubemix(['down', spec, '--cluster-dir', clusterDir, '--purge-images']);
    expect(down.exitCode, `${down.stdout}\n${down.stderr}`).toBe(0);
    expect(await leftovers(cluster)).toEqual([]);
    expect((await virsh('vol-list', '--pool', cluster.pool)).trim()).toBe('');
  });
});
