import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTestStorage } from '../../../fixtures/libvirt/lab.js';
import { ensureLibvirtd, type TestLibvirtd, virsh } from '../../../fixtures/libvirt/libvirtd.js';
import { applyProvisionUpdate } from '../../../src/engine/index.js';
import { runModule } from '../../../src/executor/run-module.js';
import {
  libvirtDestroyGuestsModule,
  libvirtDestroyNetworkModule,
  libvirtGoldenCaptureModule,
  libvirtGuestsModule,
  libvirtLeakCheckModule,
  libvirtRemoveConfigIsoModule,
} from '../../../src/modules/libvirt/index.js';
import type { Module } from '../../../src/modules/types.js';
import type { GuestInput } from '../../../src/provider/libvirt/guest-os.js';
import { cachedImage } from '../../../src/provider/libvirt/image.js';
import { clusterFilesDir, macAddress } from '../../../src/provider/libvirt/names.js';
import { guestDeviceVars } from '../../../src/provider/libvirt/node-host.js';
import { dirPoolXml } from '../../../src/provider/libvirt/storage-xml.js';
import { goldenImage } from '../../../src/provider/libvirt/windows/golden-cache.js';
import {
  defaultWindowsImage,
  generateAdministratorPassword,
} from '../../../src/provider/libvirt/windows/index.js';
import { windowsGoldenGuest } from '../../../src/provider/libvirt/windows-golden-guest.js';
import { windowsGuest } from '../../../src/provider/libvirt/windows-guest.js';
import { LocalTransport } from '../../../src/transport/local/index.js';
import type { InventoryHost } from '../../../src/types/inventory.js';
import type { ProviderResource, ProvisionLedger } from '../../../src/types/provision.js';

// The hypervisor side of the golden image flow, module after module as `up` runs them on a
// hypervisor (create-hosts, then the golden-image task's hypervisor steps, then `down`), on a real
// libvirtd with QEMU under TCG, through kubemix's local transport. STAND-INS, not Windows: the
// "Windows ISO" is a small file that boots nothing, so the guests never run Windows; "sysprep
// shuts the guest off" is QEMU told to quit over QMP (libvirt reports `shut off (shutdown)`, as
// for a guest's own power-off). The guest steps (first logon, generalize) are not run here (see
// windows-generalize.integration.test.ts for the generalize step on the Windows simulator).

const run = randomBytes(3).toString('hex');
const cluster = `kmx-gflow-${run}`;
const pool = `kubemix-tests-gflow-${run}`;
const dataDir = `/var/lib/kubemix-tests-${cluster}`;
const poolPath = join(dataDir, 'pool');
const network = `${cluster}.hypervisor-01.network`;
const HV = 'hypervisor-01';
const host: InventoryHost = {
  name: HV,
  address: '127.0.0.1',
  os: 'linux',
  connection: 'local',
  role: 'worker',
  group: 'hypervisors',
};
const windowsIso = cachedImage({ source: '/isos/ws2022.iso', sha256: 'e'.repeat(64) }, 'iso');
const golden = goldenImage({ windowsIso, version: '2022', image: defaultWindowsImage('2022') });
const nodes = ['win-1', 'win-2', 'win-3'];
const passwords = Object.fromEntries(nodes.map((n) => [n, generateAdministratorPassword()]));
let libvirtd: TestLibvirtd;

const resources: ProviderResource[] = [];
const ledger: ProvisionLedger = {
  get resources() {
    return resources;
  },
  record: async (update) =>
    applyProvisionUpdate({ resources, assignments: {} }, update, new Date().toISOString()),
};

function input(node: string): GuestInput {
  return {
    cluster,
    node,
    hypervisor: HV,
    vcpus: 1,
    memoryMiB: 128,
    diskGiB: 1,
    ip: `10.213.${200 + nodes.indexOf(node)}.11`,
    mac: macAddress(cluster, node),
    network,
    dnsDomain: `${cluster}.kubemix.internal`,
    dataDir,
    publicKey: 'ssh-ed25519 AAAA kubemix',
    connection: 'winrm',
    images: { windows: windowsIso },
    windows: { version: '2022', computerName: node },
  };
}

const install = windowsGuest(input('win-1'));
const common = { uri: 'qemu:///system', cluster, dataDir, pool };
/** libvirt_guests' arguments, the same for create-hosts and the golden-image task (libvirt-provider.ts). */
const guestsArgs = {
  ...common,
  accel: 'qemu',
  passwords,
  hypervisors: { [HV]: nodes.map((n) => windowsGoldenGuest(input(n), golden)) },
  golden: { [HV]: { volume: golden.volume, install } },
};

async function runHere<A>(module: Module<A>, args: Record<string, unknown>) {
  const transport = new LocalTransport(host.name);
  try {
    return await runModule({
      module: module as Module<unknown>,
      args,
      context: { host, os: 'linux', vars: {}, checkMode: false, ledger },
      transport,
    });
  } finally {
    await transport.close();
  }
}

const lv = (...args: string[]) => execa('virsh', ['-q', '-c', 'qemu:///system', ...args], { reject: false });
const clusterDomains = async (state: string) =>
  (await virsh('list', state, '--name'))
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith(`${cluster}.`))
    .sort();
const backingOf = async (volume: string) =>
  /<backingStore>\s*<path>([^<]+)<\/path>/.exec(await virsh('vol-dumpxml', '--pool', pool, volume))?.[1];

beforeAll(async () => {
  libvirtd = await ensureLibvirtd();
  mkdirSync(poolPath, { recursive: true });
  // The cluster's file directory, as create-network makes and records it.
  mkdirSync(clusterFilesDir(dataDir, cluster), { recursive: true, mode: 0o700 });
  resources.push({
    provider: 'libvirt',
    kind: 'directory',
    name: clusterFilesDir(dataDir, cluster),
    location: HV,
    status: 'created',
  });
  writeFileSync(join(dataDir, 'pool.xml'), dirPoolXml({ name: pool, path: poolPath }));
  await virsh('pool-define', join(dataDir, 'pool.xml'));
  await virsh('pool-start', pool);
  // The stand-in "Windows ISO" in the image cache, as prepare-provider leaves the real one.
  writeFileSync(join(poolPath, windowsIso.volume), Buffer.alloc(1024 * 1024));
  await virsh('pool-refresh', pool);
  // An isolated network (no address: no dnsmasq, no firewall rules) for the guests' NICs.
  writeFileSync(
    join(dataDir, 'network.xml'),
    `<network><name>${network}</name><bridge name="kmxg${run}"/></network>`,
  );
  await virsh('net-define', join(dataDir, 'network.xml'));
  await virsh('net-start', network);
}, 120_000);

afterAll(async () => {
  for (const node of nodes) {
    await lv('destroy', `${cluster}.${node}`);
    await lv('undefine', '--nvram', `${cluster}.${node}`);
    rmSync(`/var/log/libvirt/qemu/${cluster}.${node}.log`, { force: true });
  }
  await lv('net-destroy', network);
  await lv('net-undefine', network);
  // libvirt 9 keeps the network's port records after net-undefine (as libvirt_destroy_network knows).
  rmSync(`/run/libvirt/network/${network}`, { recursive: true, force: true });
  await removeTestStorage({ dataDir, pool });
  await libvirtd?.stop();
}, 120_000);

describe('golden image flow on the hypervisor (real libvirtd + QEMU TCG; stand-ins, not Windows)', () => {
  it('installs the first guest, captures it, re-creates it and the others as overlays, and down leaves only the golden volume', {
    timeout: 600_000,
  }, async () => {
    // create-hosts: no golden volume yet.
    const created = await runHere(libvirtGuestsModule, guestsArgs);
    expect(created.msg ?? '').toBe('');
    expect(created).toMatchObject({
      failed: false,
      data: { golden: 'capture', guests: [`${cluster}.win-1`] },
    });
    expect(await clusterDomains('--all')).toEqual([`${cluster}.win-1`]);
    expect(await backingOf(`${cluster}.win-1.disk.qcow2`)).toBeUndefined();
    // The golden-image task decides again first: nothing new while the volume is still missing.
    const again = await runHere(libvirtGuestsModule, guestsArgs);
    expect(again).toMatchObject({ failed: false, changed: false, data: { golden: 'capture' } });

    // The golden-image task's hypervisor steps (the guest's own steps run over its connection).
    const devices = guestDeviceVars(install);
    const ejected = await runHere(libvirtRemoveConfigIsoModule, {
      uri: common.uri,
      pool,
      domain: install.domain,
      volume: devices.libvirt_config_volume,
      target: devices.libvirt_config_target,
    });
    expect(ejected.failed).toBe(false);
    await lv('qemu-monitor-command', install.domain, '{"execute":"quit"}');
    const captured = await runHere(libvirtGoldenCaptureModule, {
      ...common,
      domain: install.domain,
      node: 'win-1',
      disk: `${cluster}.win-1.disk.qcow2`,
      golden: golden.volume,
      timeoutMinutes: 5,
    });
    expect(captured.msg).toBe(
      `${golden.volume} captured from ${install.domain}; the installed guest is removed`,
    );

    const overlays = await runHere(libvirtGuestsModule, guestsArgs);
    expect(overlays.msg ?? '').toBe('');
    expect(overlays).toMatchObject({ failed: false, data: { golden: 'exists' } });
    expect(await clusterDomains('--state-running')).toEqual(nodes.map((n) => `${cluster}.${n}`));
    for (const node of nodes)
      expect(await backingOf(`${cluster}.${node}.disk.qcow2`)).toBe(join(poolPath, golden.volume));
    // The re-created first guest boots from its overlay with the specialize answers, not the install ones.
    const domainXml = await virsh('dumpxml', install.domain);
    expect(domainXml).not.toContain(windowsIso.volume);
    const answer = execFileSync(
      'isoinfo',
      ['-J', '-i', join(poolPath, `${cluster}.win-1.config.iso`), '-x', '/Autounattend.xml'],
      { encoding: 'utf8' },
    );
    expect(answer.includes('<settings pass="specialize">')).toBe(true);
    expect(answer.includes('<settings pass="windowsPE">')).toBe(false);
    expect(answer.includes(passwords['win-1']!)).toBe(true);

    // down: everything the state recorded goes; the golden volume and the cached ISO stay.
    const destroyed = await runHere(libvirtDestroyGuestsModule, {
      ...common,
      consoleDir: '',
      purgeImages: [],
      recorded: {},
    });
    expect(destroyed.msg ?? '').toBe('');
    expect(destroyed.failed).toBe(false);
    const cleaned = await runHere(libvirtDestroyNetworkModule, {
      ...common,
      cidr: '10.213.250.0/24',
      hypervisors: {},
    });
    expect(cleaned.failed).toBe(false);
    const leaks = await runHere(libvirtLeakCheckModule, {
      ...common,
      cidr: '10.213.250.0/24',
      hypervisors: {},
    });
    expect(leaks.data?.['found'], JSON.stringify(leaks.data)).toEqual([]);
    expect(readdirSync(poolPath).sort()).toEqual([golden.volume, windowsIso.volume].sort());
  });
});
