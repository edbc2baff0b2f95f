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
  libvirtGoldenMarkModule,
  libvirtGuestsModule,
  libvirtLeakCheckModule,
  libvirtRemoveConfigIsoModule,
} from '../../../src/modules/libvirt/index.js';
import type { Module } from '../../../src/modules/types.js';
import { buildPlan } from '../../../src/plan/index.js';
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
import { validateSpecInput } from '../../../src/spec/validate.js';
import { evaluateCondition } from '../../../src/template/render.js';
import { LocalTransport } from '../../../src/transport/local/index.js';
import type { InventoryHost } from '../../../src/types/inventory.js';
import type { ProviderResource, ProvisionLedger } from '../../../src/types/provision.js';
import { loadVersions } from '../../../src/versions/versions.js';

// A golden-image task resumed after the first Windows guest was marked and sysprep started: on a
// real libvirtd with QEMU under TCG, through kubemix's local transport, module after module as the
// plan's `when` conditions pick them for what the resumed libvirt_guests registers. STAND-INS,
// not Windows (as in golden-flow.integration.test.ts): the "Windows ISO" is a blank file, and
// "sysprep's power-off" is QEMU told to quit over QMP (libvirt reports `shut off (shutdown)`).

const run = randomBytes(3).toString('hex');
const cluster = `kmx-gres-${run}`;
const pool = `kubemix-tests-gres-${run}`;
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
const windowsIso = cachedImage({ source: '/isos/ws2022.iso', sha256: 'f'.repeat(64) }, 'iso');
const golden = goldenImage({ windowsIso, version: '2022', image: defaultWindowsImage('2022') });
const nodes = ['win-1', 'win-2'];
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
    ip: `10.214.${200 + nodes.indexOf(node)}.11`,
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
const guestsArgs = {
  ...common,
  accel: 'qemu',
  passwords,
  hypervisors: { [HV]: nodes.map((n) => windowsGoldenGuest(input(n), golden)) },
  golden: { [HV]: { volume: golden.volume, install } },
};
const captureArgs = {
  ...common,
  domain: install.domain,
  node: 'win-1',
  disk: `${cluster}.win-1.disk.qcow2`,
  golden: golden.volume,
  timeoutMinutes: 5,
};

/** The golden-image task's steps as `up` plans them (their modules and `when` conditions). */
function plannedSteps() {
  const spec = validateSpecInput(
    {
      name: 'lab',
      provider: {
        type: 'libvirt',
        images: { windows: { source: 'https://isos.example/ws2022.iso', sha256: 'a'.repeat(64) } },
        windows: { goldenImage: true },
      },
      nodes: { controlPlane: { count: 1 }, workers: [{ name: 'win', os: 'windows', count: 2 }] },
    },
    { file: 'spec.yaml' },
  );
  const plan = buildPlan({ spec, versions: loadVersions(), clusterDir: '/clusters/lab' });
  return plan.tasks.find((t) => t.name === 'golden-image')!.steps;
}

/** The modules of the golden-image task that run after its first step registered `registered`. */
const modulesToRun = (registered: Record<string, unknown>) =>
  plannedSteps()
    .slice(1)
    .filter((s) => {
      const when = s.keywords?.['when'];
      return when === undefined || evaluateCondition(when, { outputs: { libvirt_guests: registered } });
    })
    .map((s) => s.module);

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
const domstate = async (domain: string) => (await lv('domstate', '--reason', domain)).stdout.trim();

/** Waits for the domain to be shut off, one lifecycle event (or 5 s) at a time, for at most 2 minutes. */
async function shutOff(domain: string): Promise<string> {
  for (let i = 0; i < 24; i++) {
    const state = await domstate(domain);
    if (state.startsWith('shut off')) return state;
    await lv('event', '--domain', domain, '--event', 'lifecycle', '--timeout', '5');
  }
  return domstate(domain);
}

beforeAll(async () => {
  libvirtd = await ensureLibvirtd();
  mkdirSync(poolPath, { recursive: true });
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
  writeFileSync(join(poolPath, windowsIso.volume), Buffer.alloc(1024 * 1024));
  await virsh('pool-refresh', pool);
  await startNetwork();
}, 120_000);

/** The guests' network (a test's `down` removes it; the next test starts it again). */
async function startNetwork(): Promise<void> {
  writeFileSync(
    join(dataDir, 'network.xml'),
    `<network><name>${network}</name><bridge name="kmxr${run}"/></network>`,
  );
  await virsh('net-define', join(dataDir, 'network.xml'));
  await virsh('net-start', network);
}

afterAll(async () => {
  for (const node of nodes) {
    await lv('destroy', `${cluster}.${node}`);
    await lv('undefine', '--nvram', `${cluster}.${node}`);
    rmSync(`/var/log/libvirt/qemu/${cluster}.${node}.log`, { force: true });
  }
  await lv('net-destroy', network);
  await lv('net-undefine', network);
  rmSync(`/run/libvirt/network/${network}`, { recursive: true, force: true });
  await removeTestStorage({ dataDir, pool });
  await libvirtd?.stop();
}, 120_000);

describe('golden image task resumed after sysprep started (real libvirtd + QEMU TCG; stand-ins, not Windows)', () => {
  it('keeps the marked first guest as it is, running or shut off, and captures it without the install watch', {
    timeout: 600_000,
  }, async () => {
    // create-hosts, then the first run of the golden-image task up to the mark.
    const created = await runHere(libvirtGuestsModule, guestsArgs);
    expect(created).toMatchObject({ failed: false, data: { golden: 'capture' } });
    expect(modulesToRun({ golden: 'capture' })).toContain('libvirt_windows_install');
    const devices = guestDeviceVars(install);
    const ejected = await runHere(libvirtRemoveConfigIsoModule, {
      uri: common.uri,
      pool,
      domain: install.domain,
      volume: devices.libvirt_config_volume,
      target: devices.libvirt_config_target,
    });
    expect(ejected.failed).toBe(false);
    const marked = await runHere(libvirtGoldenMarkModule, { uri: common.uri, domain: install.domain });
    expect(marked.msg).toBe(`${install.domain} is marked as being generalized`);

    // The run stops while "sysprep" runs; resumed, the task's first step leaves the guest alone.
    const whileRunning = await runHere(libvirtGuestsModule, guestsArgs);
    expect(whileRunning).toMatchObject({ failed: false, changed: false, data: { golden: 'generalizing' } });
    expect(await domstate(install.domain)).toMatch(/^running/);

    // "sysprep" powers the guest off; the run is resumed again.
    await lv('qemu-monitor-command', install.domain, '{"execute":"quit"}');
    expect(await shutOff(install.domain)).toBe('shut off (shutdown)');
    const resumed = await runHere(libvirtGuestsModule, guestsArgs);
    expect(resumed).toMatchObject({ failed: false, changed: false, data: { golden: 'generalizing' } });
    // Not started again: booting it would specialize the generalized Windows.
    expect(await domstate(install.domain)).toBe('shut off (shutdown)');

    // What the task runs next, as its `when` conditions decide for what was registered.
    const next = modulesToRun(resumed.data ?? {});
    // lineinfile forgets the install's host key on the kubemix machine (no hypervisor part: not run here).
    expect(next).toEqual(['lineinfile', 'libvirt_golden_capture', 'libvirt_guests']);
    const captured = await runHere(libvirtGoldenCaptureModule, captureArgs);
    expect(captured.msg).toBe(
      `${golden.volume} captured from ${install.domain}; the installed guest is removed`,
    );
    const overlays = await runHere(libvirtGuestsModule, guestsArgs);
    expect(overlays).toMatchObject({ failed: false, data: { golden: 'exists' } });
    // The re-made first guest gets the specialize answers: the install's config ISO, deleted
    // before the mark, was not made again by the resumed runs (it has the overlay's name).
    const answer = execFileSync(
      'isoinfo',
      ['-J', '-i', join(poolPath, `${cluster}.win-1.config.iso`), '-x', '/Autounattend.xml'],
      { encoding: 'utf8' },
    );
    expect(answer.includes('<settings pass="specialize">')).toBe(true);
    expect(answer.includes('<settings pass="windowsPE">')).toBe(false);
    // The re-made first guest is an overlay without the mark (a new domain).
    expect(
      (await lv('metadata', install.domain, 'https://kubemix.dev/libvirt/golden/1', '--config')).stderr,
    ).toContain('metadata not found');

    // down: the mark went with the domain; nothing is left but the golden volume and the ISO.
    const destroyed = await runHere(libvirtDestroyGuestsModule, {
      ...common,
      consoleDir: '',
      purgeImages: [],
      recorded: {},
    });
    expect(destroyed.failed).toBe(false);
    const net = { ...common, cidr: '10.214.250.0/24', hypervisors: {} };
    expect((await runHere(libvirtDestroyNetworkModule, net)).failed).toBe(false);
    const leaks = await runHere(libvirtLeakCheckModule, net);
    expect(leaks.data?.['found'], JSON.stringify(leaks.data)).toEqual([]);
    expect(readdirSync(poolPath).sort()).toEqual([golden.volume, windowsIso.volume].sort());
  });
  it('remakes as an overlay a marked first guest that a capture published the golden volume from but did not remove', {
    timeout: 600_000,
  }, async () => {
    // Without the golden volume, create-hosts makes the first guest as installed; it is marked.
    await lv('vol-delete', '--pool', pool, golden.volume);
    if ((await lv('net-info', network)).exitCode !== 0) await startNetwork();
    const created = await runHere(libvirtGuestsModule, guestsArgs);
    expect(created).toMatchObject({ failed: false, data: { golden: 'capture' } });
    const marked = await runHere(libvirtGoldenMarkModule, { uri: common.uri, domain: install.domain });
    expect(marked.failed).toBe(false);
    // What a capture leaves when its removal of the guest fails: the volume published (a STAND-IN
    // qcow2 here), the installed guest still defined, running, marked.
    execFileSync('qemu-img', ['create', '-q', '-f', 'qcow2', join(poolPath, golden.volume), '1G']);
    await virsh('pool-refresh', pool);

    const remade = await runHere(libvirtGuestsModule, guestsArgs);
    expect(remade).toMatchObject({ failed: false, changed: true, data: { golden: 'exists' } });
    for (const node of nodes) {
      expect(await domstate(`${cluster}.${node}`)).toMatch(/^running/);
      const disk = await virsh('vol-dumpxml', '--pool', pool, `${cluster}.${node}.disk.qcow2`);
      expect(disk).toContain(`<path>${join(poolPath, golden.volume)}</path>`);
    }
    // A new domain: without the mark.
    expect(
      (await lv('metadata', install.domain, 'https://kubemix.dev/libvirt/golden/1', '--config')).stderr,
    ).toContain('metadata not found');

    const destroyed = await runHere(libvirtDestroyGuestsModule, {
      ...common,
      consoleDir: '',
      purgeImages: [],
      recorded: {},
    });
    expect(destroyed.failed).toBe(false);
    const net = { ...common, cidr: '10.214.250.0/24', hypervisors: {} };
    expect((await runHere(libvirtDestroyNetworkModule, net)).failed).toBe(false);
    const leaks = await runHere(libvirtLeakCheckModule, net);
    expect(leaks.data?.['found'], JSON.stringify(leaks.data)).toEqual([]);
  });
});
