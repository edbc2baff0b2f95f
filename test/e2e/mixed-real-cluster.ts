import { rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { stringify } from 'yaml';
import { labSpec } from '../../fixtures/cluster-lab/lab-spec.js';
import { windowsHostName, windowsNodeAddress } from '../../fixtures/cluster-lab/mixed-lab.js';
import { singleAdapter } from '../../fixtures/lab/state/windows-node-network.js';
import { fillOfflineArtifacts } from '../../fixtures/libvirt/offline-artifacts.js';
import type { BuiltRelease } from '../../fixtures/release/built-release.js';
import { registerClusterCommands } from '../../fixtures/windows-sim/cluster-commands.js';
import { startWindowsLab, type WindowsLab } from '../../fixtures/windows-sim/lab.js';
import { RealControlPlaneLink } from '../../fixtures/windows-sim/real-join/real-control-plane-link.js';
import type { WindowsVersion } from '../../src/types/windows.js';
import { testTempDir } from '../helpers/temp.js';
import { kubemix, settleKubemixRuns } from './helpers.js';
import { OfflineLibvirtCluster, REAL_CLUSTER_GUESTS } from './offline-libvirt-cluster.js';

/** The interface that holds `address` on this machine (the libvirt network's bridge holds its gateway). */
async function interfaceHolding(address: string): Promise<string> {
  const { stdout } = await execa('ip', ['-o', '-4', 'addr', 'show']);
  const line = stdout.split('\n').find((l) => l.includes(` inet ${address}/`));
  const name = line?.split(/\s+/)[1];
  if (!name) throw new Error(`no interface of this machine holds ${address}`);
  return name;
}

/**
 * A mixed cluster of real and simulated machines (issue 24 item 5): the controller and the Linux
 * worker are real QEMU guests of this machine's libvirtd, made by kubemix's libvirt provider
 * (`up --stop-after wait-for-hosts`), and the Windows Server workers are simulated hosts
 * (fixtures/windows-sim) served over WinRM from this process, on addresses of the guests' network
 * (the libvirt bridge holds them as /32s: a node-ip must not be loopback). Their `kubeadm.exe join`
 * runs the release's real kubeadm against the guests' real API server, and their simulated
 * kubelets keep their Nodes and run the pods the real scheduler binds to them
 * (fixtures/windows-sim/real-join/).
 *
 * The cluster itself is built from a static spec, as a user lists machines they already have: the
 * guests by address with the libvirt cluster's key and known_hosts, the Windows hosts over WinRM
 * with their password by env reference. It builds offline from the libvirt spec's artifacts
 * directory, to which the static spec adds the Windows files (fillOfflineArtifacts).
 * `stop` works from any point `start` reached: the static spec's `down` while its cluster is
 * recorded, the simulated kubelets and hosts, the addresses, then the guests' own `down`.
 */
export class MixedRealCluster {
  readonly guests: OfflineLibvirtCluster;
  /** The static spec of the whole cluster and its cluster directory. */
  spec = '';
  clusterDir = '';
  /** The Windows hosts' names and versions, in spec order. */
  readonly windowsHosts: Array<{ name: string; version: WindowsVersion }>;
  /** Each Windows host's address on the guests' network (its WinRM address and node-ip). */
  windowsAddresses: Record<string, string> = {};
  link?: RealControlPlaneLink;
  windows?: WindowsLab;
  private unregister?: () => void;
  private bridge = '';
  private added: string[] = [];
  private work = '';
  /** An `up` ran and no `down` has ended well since: `stop` runs one. */
  private built = false;

  constructor(stem: string, versions: WindowsVersion[]) {
    this.guests = new OfflineLibvirtCluster(stem);
    this.windowsHosts = versions.map((version, i) => ({ name: windowsHostName(i), version }));
  }

  /** The controller's address. */
  get controller(): string {
    return this.guests.controller;
  }

  async start(release: BuiltRelease): Promise<this> {
    await this.guests.start(REAL_CLUSTER_GUESTS, release);
    const machines = await this.guests.run('up', '--stop-after', 'wait-for-hosts');
    if (machines.exitCode !== 0)
      throw new Error(`the guests' up failed:\n${machines.stdout}\n${machines.stderr}`);
    const cidrBase = this.guests.cluster!.cidr.replace(/\.0\/24$/, '');
    this.bridge = await interfaceHolding(`${cidrBase}.1`);
    this.work = await testTempDir('mixed-real');
    const hosts = this.windowsHosts.map(({ name, version }, i) => {
      const address = windowsNodeAddress(this.controller, i);
      this.windowsAddresses[name] = address;
      return { name, windowsVersion: version, address, nics: singleAdapter(address), rebootDownMs: 500 };
    });
    for (const host of hosts) {
      await execa('ip', ['addr', 'add', `${host.address}/32`, 'dev', this.bridge]);
      this.added.push(host.address);
    }
    this.windows = await startWindowsLab({ hosts });
    this.link = new RealControlPlaneLink(release, join(this.work, 'nodes'));
    this.unregister = registerClusterCommands(this.windows.simulator, {
      // The lab's cluster state stays empty: the nodes join the real control plane.
      stateDir: join(this.work, 'lab-state'),
      nodeAddresses: this.windowsAddresses,
      realControlPlane: this.link,
    });
    this.spec = await this.writeSpec(release);
    await fillOfflineArtifacts(dirname(this.guests.spec), this.spec, release);
    this.clusterDir = join(dirname(this.guests.clusterDir), 'mixed-cluster');
    return this;
  }

  /** The static spec over the guests and the Windows hosts, beside the libvirt spec (sharing its artifacts). */
  private async writeSpec(release: BuiltRelease): Promise<string> {
    const keys = this.guests.clusterDir;
    const doc = labSpec({
      name: `${this.guests.cluster!.name}-mixed`,
      linuxHosts: [
        { name: 'controller-01', address: this.guests.guest(0), port: 22 },
        { name: 'linux-01', address: this.guests.guest(1), port: 22 },
      ].map((h) => ({ ...h, os: 'linux' as const, role: 'worker' as const })),
      controllers: 1,
      windowsHosts: this.windows!.hosts,
      knownHostsPath: join(keys, 'known_hosts'),
      privateKeyPath: join(keys, 'id_ed25519'),
      kubernetesVersion: release.kubernetesVersion,
    });
    // Not the lab's: real guests keep their own /etc/fstab, and the pins are the offline spec's.
    const { vars: _labVars, ...rest } = doc;
    // The last Windows group asks for kubemix's os=windows:NoSchedule taint: the real scheduler then
    // decides what the Windows manifests' tolerations let onto it.
    const last = rest.nodes!.workers!.at(-1)!;
    last.taint = true;
    const path = join(dirname(this.guests.spec), `${doc.name}.yaml`);
    await writeFile(
      path,
      stringify({ ...rest, artifacts: { dir: 'artifacts' }, versions: this.guests.versions }),
    );
    return path;
  }

  /** `kubemix <command> <static spec> --cluster-dir <dir> ...rest`. */
  async run(command: string, ...rest: string[]) {
    const ran = await kubemix([command, this.spec, '--cluster-dir', this.clusterDir, ...rest]);
    if (command === 'up') this.built = true;
    if (command === 'down' && ran.exitCode === 0) this.built = false;
    return ran;
  }

  async stop(): Promise<void> {
    await settleKubemixRuns();
    if (this.built) await this.run('down');
    await this.link?.stop();
    this.unregister?.();
    await this.windows?.stop();
    for (const address of this.added.splice(0))
      await execa('ip', ['addr', 'del', `${address}/32`, 'dev', this.bridge], { reject: false });
    if (this.work) await rm(this.work, { recursive: true, force: true });
    await this.guests.stop();
  }
}
