import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dfPingCommand } from '../../fixtures/libvirt/df-ping.js';
import { guestSsh, leftovers, testImage, writeLibvirtSpec } from '../../fixtures/libvirt/lab.js';
import { LIBVIRT_URI } from '../../fixtures/libvirt/libvirtd.js';
import {
  labSshArgs,
  type RemoteHypervisors,
  startRemoteHypervisors,
} from '../../fixtures/libvirt/remote-hypervisors.js';
import { readState } from '../../src/engine/index.js';
import { bridgeName, networkName, tunnelName } from '../../src/provider/libvirt/names.js';
import type { InventoryHost } from '../../src/types/inventory.js';
import { kubemix, tempClusterDir } from './helpers.js';

// Two hypervisors reached over SSH: two lab hosts (real sshd, each in its own network, mount and
// PID namespace), each running its own libvirtd on private libvirt directories, so they share
// nothing but the kernel and /dev/kvm. kubemix places the controller on the first (the gateway:
// NAT, DHCP for every node, DNS) and the worker on the second, names every per-hypervisor
// resource after its hypervisor, joins the two networks with its VXLAN tunnel, and reaches the
// guests through the first hypervisor as a jump host. The worker on the second hypervisor gets
// its address and name from the first one's dnsmasq across the tunnel, and both guests the
// tunnel's MTU on their NICs; then `down` must leave nothing on either. Real guests: two boots
// under TCG.
const cluster = {
  name: 'kmxrem',
  cidr: '10.213.30.0/24',
  dataDir: '/var/lib/kubemix-tests-remote',
  pool: 'kubemix-tests-remote',
};
const controller = '10.213.30.11';
const worker = '10.213.30.12';
let hypervisors: RemoteHypervisors;
let spec: string;
let clusterDir: string;
let upResult: Awaited<ReturnType<typeof kubemix>>;

const hv = (index: number) => hypervisors.hosts[index] as InventoryHost;
const virshOn = async (host: InventoryHost, ...args: string[]) =>
  (await hypervisors.run(host)('virsh', ['-q', '-c', LIBVIRT_URI, ...args])).stdout;
const inGuest = (address: string, command: string) =>
  guestSsh(clusterDir, address, command, labSshArgs(hypervisors.lab, hv(0)));

beforeAll(async () => {
  const image = await testImage();
  hypervisors = await startRemoteHypervisors(2, cluster.dataDir);
  clusterDir = join(await tempClusterDir(), 'cluster');
  spec = await writeLibvirtSpec(join(clusterDir, '..', 'remote.yaml'), {
    ...cluster,
    image: { source: image.path, sha256: image.sha256 },
    linuxWorkers: 1,
    hypervisors: hypervisors.hosts.map((h) => ({
      name: h.name,
      address: h.address,
      privateKey: hypervisors.lab.privateKeyPath,
    })),
    knownHosts: hypervisors.lab.knownHostsPath,
  });
  upResult = await kubemix(['up', spec, '--cluster-dir', clusterDir, '--stop-after', 'wait-for-hosts']);
}, 30 * 60_000);

afterAll(async () => {
  // The lab's PID namespaces take the libvirtds and guests with them; its private directories go too.
  await hypervisors?.stop();
  if (clusterDir) await rm(join(clusterDir, '..'), { recursive: true, force: true });
}, 5 * 60_000);

describe('libvirt on two remote hypervisors over SSH (own libvirtd each, VXLAN between them)', () => {
  it('plans the placement and runs every provider task on the hypervisors over SSH', async () => {
    expect(upResult.exitCode, `${upResult.stdout}\n${upResult.stderr}`).toBe(0);
    for (const task of ['prepare-provider', 'create-network', 'create-hosts', 'wait-for-hosts'])
      expect(upResult.stdout).toContain(`DONE  ${task}`);
    // --detail: each host on one line, whatever the width (the summary wraps to the terminal).
    const plan = await kubemix(['plan', spec, '--cluster-dir', clusterDir, '--detail']);
    expect(plan.stdout).toMatch(
      new RegExp(
        `controller-01 .* ${controller}:22 \\(DHCP reservation\\) via ${hv(0).name}, on ${hv(0).name}`,
      ),
    );
    expect(plan.stdout).toMatch(
      new RegExp(`linux-01 .* ${worker}:22 \\(DHCP reservation\\) via ${hv(0).name}, on ${hv(1).name}`),
    );
  });

  it('puts each guest on its hypervisor and names the per-hypervisor resources after it', async () => {
    expect((await virshOn(hv(0), 'list', '--all', '--name')).trim()).toBe(`${cluster.name}.controller-01`);
    expect((await virshOn(hv(1), 'list', '--all', '--name')).trim()).toBe(`${cluster.name}.linux-01`);
    for (const host of [hv(0), hv(1)]) {
      expect((await virshOn(host, 'net-list', '--name')).trim()).toBe(networkName(cluster.name, host.name));
      const links = (await hypervisors.run(host)('ip', ['-o', 'link', 'show'])).stdout;
      expect(links).toContain(`${bridgeName(cluster.name, host.name)}:`);
      expect(links).toContain(`${tunnelName(cluster.name, host.name)}:`);
    }
    const state = await readState(clusterDir);
    expect(
      state?.resources
        .filter((r) => r.kind === 'tunnel' || r.kind === 'network')
        .map((r) => `${r.location} ${r.kind} ${r.name} ${r.status}`)
        .sort(),
    ).toEqual(
      [0, 1]
        .flatMap((i) => [
          `${hv(i).name} network ${networkName(cluster.name, hv(i).name)} created`,
          `${hv(i).name} tunnel ${tunnelName(cluster.name, hv(i).name)} created`,
        ])
        .sort(),
    );
  });

  it("gives the second hypervisor's guest its address and name from the first's DHCP, across the tunnel", async () => {
    const facts = await inGuest(worker, 'hostname; cloud-init status');
    expect(facts.exitCode, facts.stderr).toBe(0);
    expect(facts.stdout.split('\n')).toEqual(['linux-01', 'status: done']);
    // The controller's sshd answers the worker, guest to guest across the tunnel; DNS names resolve.
    const across = await inGuest(
      worker,
      `getent hosts controller-01.${cluster.name}.kubemix.internal; timeout 10 bash -c 'exec 3<>/dev/tcp/${controller}/22 && head -c 7 <&3'`,
    );
    // getent pads the address to 15 columns.
    expect(across.stdout.split('\n').map((line) => line.split(/\s+/))).toEqual([
      [controller, `controller-01.${cluster.name}.kubemix.internal`],
      ['SSH-2.0'],
    ]);
  });

  it("sets the guests' NICs to the tunnel's MTU (1450): the largest DF packet crosses guest to guest, a larger one is refused in the guest", async () => {
    // Every NIC but lo, with its MTU (the interface name depends on the guest's udev naming).
    const nics =
      'for d in /sys/class/net/*; do n=$(basename "$d"); [ "$n" = lo ] || echo "$n $(cat "$d/mtu")"; done';
    for (const address of [controller, worker]) {
      const shown = await inGuest(address, nics);
      expect(shown.exitCode, shown.stderr).toBe(0);
      expect(shown.stdout.split('\n'), address).toEqual([expect.stringMatching(/^\S+ 1450$/)]);
    }
    // 1450 bytes of IPv4 is the most a VXLAN frame between 1500-byte hypervisor links carries.
    const fits = await inGuest(worker, dfPingCommand(controller, 1450));
    expect(fits.stdout.trim(), fits.stderr).toBe('reply 1450 bytes');
    const back = await inGuest(controller, dfPingCommand(worker, 1450));
    expect(back.stdout.trim(), back.stderr).toBe('reply 1450 bytes');
    // One byte more with Don't Fragment: the guest's own kernel refuses it (at MTU 1500 it would
    // leave and be dropped silently where the bridge meets the tunnel).
    const tooLarge = await inGuest(worker, dfPingCommand(controller, 1451));
    expect(tooLarge.stdout.trim(), tooLarge.stderr).toBe('local error: Message too long');
  });

  it('lists the resources of both hypervisors and that they exist (kubemix status)', async () => {
    const status = await kubemix(['status', spec, '--cluster-dir', clusterDir]);
    expect(status.exitCode, status.stderr).toBe(0);
    for (const line of [
      `tunnel ${tunnelName(cluster.name, hv(1).name)}  recorded created  exists`,
      `domain ${cluster.name}.linux-01  recorded created  exists`,
      `network ${networkName(cluster.name, hv(0).name)}  recorded created  exists`,
    ])
      expect(status.stdout).toContain(line);
  });

  it('kubemix down leaves nothing on either hypervisor', async () => {
    const down = await kubemix(['down', spec, '--cluster-dir', clusterDir, '--purge-images']);
    expect(down.exitCode, `${down.stdout}\n${down.stderr}`).toBe(0);
    expect(down.stdout).toContain('DONE  check-leaks');
    for (const host of [hv(0), hv(1)])
      expect(await leftovers(cluster, { hypervisor: host.name, run: hypervisors.run(host) })).toEqual([]);
    expect(await readFile(join(clusterDir, 'console', 'linux-01.log'), 'utf8')).toContain('cloud-init');
  });
});
