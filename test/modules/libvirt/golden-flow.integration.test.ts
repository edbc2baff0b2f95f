import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GoldenTestHypervisor,
  goldenTestHypervisor,
  powerOffLikeSysprep,
  removeDomains,
  STAND_IN_GOLDEN,
  STAND_IN_WINDOWS_ISO,
  virshResult,
  writePoolFiles,
} from '../../../fixtures/libvirt/golden.js';
import { ensureLibvirtd, type TestLibvirtd, virsh } from '../../../fixtures/libvirt/libvirtd.js';
import {
  libvirtDestroyGuestsModule,
  libvirtDestroyNetworkModule,
  libvirtGoldenCaptureModule,
  libvirtGuestsModule,
  libvirtLeakCheckModule,
  libvirtRemoveConfigIsoModule,
} from '../../../src/modules/libvirt/index.js';
import type { GuestInput } from '../../../src/provider/libvirt/guest-os.js';
import { clusterFilesDir, macAddress, networkName } from '../../../src/provider/libvirt/names.js';
import { guestDeviceVars } from '../../../src/provider/libvirt/node-host.js';
import { generateAdministratorPassword } from '../../../src/provider/libvirt/windows/index.js';
import { windowsGoldenGuest } from '../../../src/provider/libvirt/windows-golden-guest.js';
import { windowsGuest } from '../../../src/provider/libvirt/windows-guest.js';

// The hypervisor side of the golden image flow, module after module as `up` runs them on a
// hypervisor (create-hosts, then the golden-image task's hypervisor steps, then `down`), on a real
// libvirtd with QEMU under TCG, through kubemix's local transport. STAND-INS, not Windows: the
// "Windows ISO" is a small file that boots nothing, so the guests never run Windows; "sysprep
// shuts the guest off" is QEMU told to quit over QMP (libvirt reports `shut off (shutdown)`, as
// for a guest's own power-off). The guest steps (first logon, generalize) are not run here (see
// windows-generalize.integration.test.ts for the generalize step on the Windows simulator).

const windowsIso = STAND_IN_WINDOWS_ISO;
const golden = STAND_IN_GOLDEN;
const nodes = ['win-1', 'win-2', 'win-3'];
const passwords = Object.fromEntries(nodes.map((n) => [n, generateAdministratorPassword()]));
let libvirtd: TestLibvirtd;
let hv: GoldenTestHypervisor;
// Known once the unique cluster is made (beforeAll).
let cluster: string;
let network: string;
let install: ReturnType<typeof windowsGuest>;
let guestsArgs: Record<string, unknown>;

function input(node: string): GuestInput {
  return {
    cluster,
    node,
    hypervisor: hv.host.name,
    vcpus: 1,
    memoryMiB: 128,
    diskGiB: 1,
    ip: hv.cluster.guest(nodes.indexOf(node)),
    mac: macAddress(cluster, node),
    network,
    dnsDomain: `${cluster}.kubemix.internal`,
    dataDir: hv.cluster.dataDir,
    publicKey: 'ssh-ed25519 AAAA kubemix',
    connection: 'winrm',
    images: { windows: windowsIso },
    windows: { version: '2022', computerName: node },
  };
}

const clusterDomains = async (state: string) =>
  (await virsh('list', state, '--name'))
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith(`${cluster}.`))
    .sort();
const backingOf = async (volume: string) =>
  /<backingStore>\s*<path>([^<]+)<\/path>/.exec(
    await virsh('vol-dumpxml', '--pool', hv.cluster.pool, volume),
  )?.[1];

beforeAll(async () => {
  libvirtd = await ensureLibvirtd();
  hv = await goldenTestHypervisor('kmx-gflow');
  cluster = hv.cluster.name;
  network = networkName(cluster, hv.host.name);
  install = windowsGuest(input('win-1'));
  // libvirt_guests' arguments, the same for create-hosts and the golden-image task (libvirt-provider.ts).
  guestsArgs = {
    ...hv.common,
    accel: 'qemu',
    passwords,
    hypervisors: { [hv.host.name]: nodes.map((n) => windowsGoldenGuest(input(n), golden)) },
    golden: { [hv.host.name]: { volume: golden.volume, install } },
  };
  // The cluster's file directory, as create-network makes and records it.
  const filesDir = clusterFilesDir(hv.cluster.dataDir, cluster);
  mkdirSync(filesDir, { recursive: true, mode: 0o700 });
  hv.resources.push({
    provider: 'libvirt',
    kind: 'directory',
    name: filesDir,
    location: hv.host.name,
    status: 'created',
  });
  // The stand-in "Windows ISO" in the image cache, as prepare-provider leaves the real one.
  await writePoolFiles(hv, { [windowsIso.volume]: Buffer.alloc(1024 * 1024) });
  // An isolated network (no address: no dnsmasq, no firewall rules) for the guests' NICs.
  const file = join(hv.cluster.dataDir, 'network.xml');
  writeFileSync(file, `<network><name>${network}</name><bridge name="kmxg${cluster.slice(-6)}"/></network>`);
  await virsh('net-define', file);
  await virsh('net-start', network);
}, 120_000);

afterAll(async () => {
  if (cluster) await removeDomains(nodes.map((node) => `${cluster}.${node}`));
  if (network) {
    await virshResult('net-destroy', network);
    await virshResult('net-undefine', network);
    // libvirt 9 keeps the network's port records after net-undefine (as libvirt_destroy_network knows).
    rmSync(`/run/libvirt/network/${network}`, { recursive: true, force: true });
  }
  await hv?.remove();
  await libvirtd?.stop();
}, 120_000);

describe('golden image flow on the hypervisor (real libvirtd + QEMU TCG; stand-ins, not Windows)', () => {
  it('installs the first guest, captures it, re-creates it and the others as overlays, and down leaves only the golden volume', {
    timeout: 600_000,
  }, async () => {
    // create-hosts: no golden volume yet.
    const created = await hv.run(libvirtGuestsModule, guestsArgs);
    expect(created.msg ?? '').toBe('');
    expect(created).toMatchObject({
      failed: false,
      data: { golden: 'capture', guests: [`${cluster}.win-1`] },
    });
    expect(await clusterDomains('--all')).toEqual([`${cluster}.win-1`]);
    expect(await backingOf(`${cluster}.win-1.disk.qcow2`)).toBeUndefined();
    // The golden-image task decides again first: nothing new while the volume is still missing.
    const again = await hv.run(libvirtGuestsModule, guestsArgs);
    expect(again).toMatchObject({ failed: false, changed: false, data: { golden: 'capture' } });

    // The golden-image task's hypervisor steps (the guest's own steps run over its connection).
    const devices = guestDeviceVars(install);
    const ejected = await hv.run(libvirtRemoveConfigIsoModule, {
      uri: hv.common.uri,
      pool: hv.cluster.pool,
      domain: install.domain,
      volume: devices.libvirt_config_volume,
      target: devices.libvirt_config_target,
    });
    expect(ejected.failed).toBe(false);
    await powerOffLikeSysprep(install.domain);
    const captured = await hv.run(libvirtGoldenCaptureModule, {
      ...hv.common,
      domain: install.domain,
      node: 'win-1',
      disk: `${cluster}.win-1.disk.qcow2`,
      golden: golden.volume,
      timeoutMinutes: 5,
    });
    expect(captured.msg).toBe(
      `${golden.volume} captured from ${install.domain}; the installed guest is removed`,
    );

    const overlays = await hv.run(libvirtGuestsModule, guestsArgs);
    expect(overlays.msg ?? '').toBe('');
    expect(overlays).toMatchObject({ failed: false, data: { golden: 'exists' } });
    expect(await clusterDomains('--state-running')).toEqual(nodes.map((n) => `${cluster}.${n}`));
    for (const node of nodes)
      expect(await backingOf(`${cluster}.${node}.disk.qcow2`)).toBe(join(hv.poolPath, golden.volume));
    // The re-created first guest boots from its overlay with the specialize answers, not the install ones.
    const domainXml = await virsh('dumpxml', install.domain);
    expect(domainXml).not.toContain(windowsIso.volume);
    const answer = execFileSync(
      'isoinfo',
      ['-J', '-i', join(hv.poolPath, `${cluster}.win-1.config.iso`), '-x', '/Autounattend.xml'],
      { encoding: 'utf8' },
    );
    expect(answer.includes('<settings pass="specialize">')).toBe(true);
    expect(answer.includes('<settings pass="windowsPE">')).toBe(false);
    expect(answer.includes(passwords['win-1']!)).toBe(true);

    // down: everything the state recorded goes; the golden volume and the cached ISO stay.
    const destroyed = await hv.run(libvirtDestroyGuestsModule, {
      ...hv.common,
      consoleDir: '',
      purgeImages: [],
      recorded: {},
    });
    expect(destroyed.msg ?? '').toBe('');
    expect(destroyed.failed).toBe(false);
    const cleaned = await hv.run(libvirtDestroyNetworkModule, {
      ...hv.common,
      cidr: hv.cluster.cidr,
      hypervisors: {},
    });
    expect(cleaned.failed).toBe(false);
    const leaks = await hv.run(libvirtLeakCheckModule, {
      ...hv.common,
      cidr: hv.cluster.cidr,
      hypervisors: {},
    });
    expect(leaks.data?.['found'], JSON.stringify(leaks.data)).toEqual([]);
    expect(readdirSync(hv.poolPath).sort()).toEqual([golden.volume, windowsIso.volume].sort());
  });
});
