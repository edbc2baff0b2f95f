import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import {
  type GoldenTestHypervisor,
  goldenTestHypervisor,
  removeDomains,
  STAND_IN_GOLDEN,
  STAND_IN_WINDOWS_ISO,
  virshResult,
  writePoolFiles,
} from '../../../../fixtures/libvirt/golden.js';
import { ensureLibvirtd, type TestLibvirtd, virsh } from '../../../../fixtures/libvirt/libvirtd.js';
import type { GuestInput } from '../../../../src/provider/libvirt/guest-os.js';
import {
  libvirtDestroyGuestsModule,
  libvirtDestroyNetworkModule,
  libvirtLeakCheckModule,
} from '../../../../src/provider/libvirt/modules/index.js';
import { clusterFilesDir, macAddress, networkName } from '../../../../src/provider/libvirt/names.js';
import { generateAdministratorPassword } from '../../../../src/provider/libvirt/windows/index.js';
import { windowsGoldenGuest } from '../../../../src/provider/libvirt/windows-golden-guest.js';
import { windowsGuest } from '../../../../src/provider/libvirt/windows-guest.js';

// What the golden-image flow tests (golden-flow, golden-resume) run their modules on: a unique
// cluster of Windows guests with a golden image on this machine's libvirtd (QEMU under TCG), as
// create-network and prepare-provider leave it. STAND-INS, not Windows: the "Windows ISO" is a
// blank file in the pool, so the guests boot nothing.

/** The cluster of {@link useGoldenWindowsGuests}, known once the file's beforeAll has run. */
export interface GoldenWindowsGuests {
  hv: GoldenTestHypervisor;
  cluster: string;
  /** The guests' isolated libvirt network (no address: no dnsmasq, no firewall rules). */
  network: string;
  passwords: Record<string, string>;
  /** The first guest as it installs from the ISO. */
  install: ReturnType<typeof windowsGuest>;
  /** libvirt_guests' arguments, the same for create-hosts and the golden-image task (libvirt-provider.ts). */
  guestsArgs: Record<string, unknown>;
  /** libvirt_golden_capture's arguments for the first guest. */
  captureArgs: Record<string, unknown>;
  /** The cluster's file directory, as create-network makes and records it (`down` removes it). */
  makeFilesDir(): Promise<void>;
  /** Defines and starts {@link network} (`down` removes it). */
  startNetwork(): Promise<void>;
  /** `down` on the hypervisor: the guests' teardown, the network's, then the leak check; their results. */
  down(): Promise<{
    destroyed: Awaited<ReturnType<GoldenTestHypervisor['run']>>;
    cleaned: Awaited<ReturnType<GoldenTestHypervisor['run']>>;
    leaks: Awaited<ReturnType<GoldenTestHypervisor['run']>>;
  }>;
}

/**
 * Makes the cluster before the calling file's tests (the Windows guests `nodes`, the first one
 * installing, the stand-in ISO cached, the file directory and the network made) and removes
 * everything after them. `bridge` starts the network's bridge name (unique per test file).
 */
export function useGoldenWindowsGuests(options: {
  stem: string;
  nodes: string[];
  bridge: string;
}): GoldenWindowsGuests {
  const { nodes } = options;
  const golden = STAND_IN_GOLDEN;
  const g = {
    passwords: Object.fromEntries(nodes.map((n) => [n, generateAdministratorPassword()])),
  } as GoldenWindowsGuests;
  let libvirtd: TestLibvirtd | undefined;

  const input = (node: string): GuestInput => ({
    cluster: g.cluster,
    node,
    hypervisor: g.hv.host.name,
    vcpus: 1,
    memoryMiB: 128,
    diskGiB: 1,
    ip: g.hv.cluster.guest(nodes.indexOf(node)),
    mac: macAddress(g.cluster, node),
    network: g.network,
    dnsDomain: `${g.cluster}.kubemix.internal`,
    dataDir: g.hv.cluster.dataDir,
    publicKey: 'ssh-ed25519 AAAA kubemix',
    connection: 'winrm',
    images: { windows: STAND_IN_WINDOWS_ISO },
    windows: { version: '2022', computerName: node },
  });

  g.makeFilesDir = async () => {
    const filesDir = clusterFilesDir(g.hv.cluster.dataDir, g.cluster);
    mkdirSync(filesDir, { recursive: true, mode: 0o700 });
    await g.hv.ledger.record({
      resources: [
        {
          provider: 'libvirt',
          kind: 'directory',
          name: filesDir,
          location: g.hv.host.name,
          status: 'created',
        },
      ],
    });
  };
  g.startNetwork = async () => {
    const file = join(g.hv.cluster.dataDir, 'network.xml');
    writeFileSync(
      file,
      `<network><name>${g.network}</name><bridge name="${options.bridge}${g.cluster.slice(-6)}"/></network>`,
    );
    await virsh('net-define', file);
    await virsh('net-start', g.network);
  };
  g.down = async () => {
    const { hv } = g;
    const destroyed = await hv.run(libvirtDestroyGuestsModule, {
      ...hv.common,
      consoleDir: '',
      purgeImages: [],
      recorded: {},
    });
    const network = { ...hv.common, cidr: hv.cluster.cidr, hypervisors: {} };
    const cleaned = await hv.run(libvirtDestroyNetworkModule, network);
    const leaks = await hv.run(libvirtLeakCheckModule, network);
    return { destroyed, cleaned, leaks };
  };

  beforeAll(async () => {
    libvirtd = await ensureLibvirtd();
    g.hv = await goldenTestHypervisor(options.stem);
    g.cluster = g.hv.cluster.name;
    g.network = networkName(g.cluster, g.hv.host.name);
    g.install = windowsGuest(input(nodes[0]!));
    g.guestsArgs = {
      ...g.hv.common,
      accel: 'qemu',
      passwords: g.passwords,
      hypervisors: { [g.hv.host.name]: nodes.map((n) => windowsGoldenGuest(input(n), golden)) },
      golden: { [g.hv.host.name]: { volume: golden.volume, install: g.install } },
    };
    g.captureArgs = {
      ...g.hv.common,
      domain: g.install.domain,
      node: nodes[0],
      disk: `${g.cluster}.${nodes[0]}.disk.qcow2`,
      golden: golden.volume,
      timeoutMinutes: 5,
    };
    await g.makeFilesDir();
    // The stand-in "Windows ISO" in the image cache, as prepare-provider leaves the real one.
    await writePoolFiles(g.hv, { [STAND_IN_WINDOWS_ISO.volume]: Buffer.alloc(1024 * 1024) });
    await g.startNetwork();
  }, 120_000);

  afterAll(async () => {
    if (g.cluster) await removeDomains(nodes.map((node) => `${g.cluster}.${node}`));
    if (g.network) {
      await virshResult('net-destroy', g.network);
      await virshResult('net-undefine', g.network);
      // libvirt 9 keeps the network's port records after net-undefine (as libvirt_destroy_network knows).
      rmSync(`/run/libvirt/network/${g.network}`, { recursive: true, force: true });
    }
    await g.hv?.remove();
    await libvirtd?.stop();
  }, 120_000);

  return g;
}
