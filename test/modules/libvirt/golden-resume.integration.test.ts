import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GoldenTestHypervisor,
  goldenTestHypervisor,
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
  libvirtGoldenMarkModule,
  libvirtGuestsModule,
  libvirtLeakCheckModule,
  libvirtRemoveConfigIsoModule,
} from '../../../src/modules/libvirt/index.js';
import type { Module } from '../../../src/modules/types.js';
import { buildPlan } from '../../../src/plan/index.js';
import type { GuestInput } from '../../../src/provider/libvirt/guest-os.js';
import { clusterFilesDir, macAddress, networkName } from '../../../src/provider/libvirt/names.js';
import { guestDeviceVars } from '../../../src/provider/libvirt/node-host.js';
import { generateAdministratorPassword } from '../../../src/provider/libvirt/windows/index.js';
import { windowsGoldenGuest } from '../../../src/provider/libvirt/windows-golden-guest.js';
import { windowsGuest } from '../../../src/provider/libvirt/windows-guest.js';
import { validateSpecInput } from '../../../src/spec/validate.js';
import { evaluateCondition } from '../../../src/template/render.js';
import { loadVersions } from '../../../src/versions/versions.js';

// A golden-image task resumed after the first Windows guest was marked and sysprep started: on a
// real libvirtd with QEMU under TCG, through kubemix's local transport, module after module as the
// plan's `when` conditions pick them for what the resumed libvirt_guests registers. STAND-INS,
// not Windows (as in golden-flow.integration.test.ts): the "Windows ISO" is a blank file, and
// "sysprep's power-off" is QEMU told to quit over QMP (libvirt reports `shut off (shutdown)`).

const windowsIso = STAND_IN_WINDOWS_ISO;
const golden = STAND_IN_GOLDEN;
const nodes = ['win-1', 'win-2'];
const passwords = Object.fromEntries(nodes.map((n) => [n, generateAdministratorPassword()]));
let libvirtd: TestLibvirtd;
let hv: GoldenTestHypervisor;
// Known once the unique cluster is made (beforeAll).
let cluster: string;
let pool: string;
let poolPath: string;
let network: string;
let common: GoldenTestHypervisor['common'];
let install: ReturnType<typeof windowsGuest>;
let guestsArgs: Record<string, unknown>;
let captureArgs: Record<string, unknown>;

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

const runHere = <A>(module: Module<A>, args: Record<string, unknown>) => hv.run(module, args);
const lv = virshResult;
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

/** The cluster's file directory, as create-network makes and records it (a test's `down` removes it). */
async function makeFilesDir(): Promise<void> {
  const filesDir = clusterFilesDir(hv.cluster.dataDir, cluster);
  mkdirSync(filesDir, { recursive: true, mode: 0o700 });
  await hv.ledger.record({
    resources: [
      { provider: 'libvirt', kind: 'directory', name: filesDir, location: hv.host.name, status: 'created' },
    ],
  });
}

/** The guests' isolated network (a test's `down` removes it; the next test starts it again). */
async function startNetwork(): Promise<void> {
  const file = join(hv.cluster.dataDir, 'network.xml');
  writeFileSync(file, `<network><name>${network}</name><bridge name="kmxr${cluster.slice(-6)}"/></network>`);
  await virsh('net-define', file);
  await virsh('net-start', network);
}

beforeAll(async () => {
  libvirtd = await ensureLibvirtd();
  hv = await goldenTestHypervisor('kmx-gres');
  cluster = hv.cluster.name;
  pool = hv.cluster.pool;
  poolPath = hv.poolPath;
  common = hv.common;
  network = networkName(cluster, hv.host.name);
  install = windowsGuest(input('win-1'));
  // libvirt_guests' arguments, the same for create-hosts and the golden-image task (libvirt-provider.ts).
  guestsArgs = {
    ...common,
    accel: 'qemu',
    passwords,
    hypervisors: { [hv.host.name]: nodes.map((n) => windowsGoldenGuest(input(n), golden)) },
    golden: { [hv.host.name]: { volume: golden.volume, install } },
  };
  captureArgs = {
    ...common,
    domain: install.domain,
    node: 'win-1',
    disk: `${cluster}.win-1.disk.qcow2`,
    golden: golden.volume,
    timeoutMinutes: 5,
  };
  await makeFilesDir();
  // The stand-in "Windows ISO" in the image cache, as prepare-provider leaves the real one.
  await writePoolFiles(hv, { [windowsIso.volume]: Buffer.alloc(1024 * 1024) });
  await startNetwork();
}, 120_000);

afterAll(async () => {
  if (cluster) await removeDomains(nodes.map((node) => `${cluster}.${node}`));
  if (network) {
    await lv('net-destroy', network);
    await lv('net-undefine', network);
    rmSync(`/run/libvirt/network/${network}`, { recursive: true, force: true });
  }
  await hv?.remove();
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
    const net = { ...common, cidr: hv.cluster.cidr, hypervisors: {} };
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
    // The previous test's `down` removed the network and the file directory.
    if ((await lv('net-info', network)).exitCode !== 0) await startNetwork();
    await makeFilesDir();
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
    const net = { ...common, cidr: hv.cluster.cidr, hypervisors: {} };
    expect((await runHere(libvirtDestroyNetworkModule, net)).failed).toBe(false);
    const leaks = await runHere(libvirtLeakCheckModule, net);
    expect(leaks.data?.['found'], JSON.stringify(leaks.data)).toEqual([]);
  });
});
