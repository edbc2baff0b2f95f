import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryLedger } from '../../../../fixtures/libvirt/memory-ledger.js';
import { type Lab, startLab } from '../../../../scripts/lab/lab.js';
import { createTransport } from '../../../../src/executor/create-transport.js';
import { runModule } from '../../../../src/executor/run-module.js';
import type { Module } from '../../../../src/modules/types.js';
import {
  libvirtDestroyNetworkModule,
  libvirtTunnelModule,
} from '../../../../src/provider/libvirt/modules/index.js';
import { bridgeName, networkName, tunnelName, tunnelVni } from '../../../../src/provider/libvirt/names.js';
import { TUNNEL_GUEST_MTU, type TunnelDefinition } from '../../../../src/provider/libvirt/tunnel.js';
import type { Transport } from '../../../../src/transport/types.js';
import type { InventoryHost } from '../../../../src/types/inventory.js';

// The tunnel between hypervisors, as far as network namespaces allow it without libvirt: two
// lab hosts (real sshd, each in its own network namespace on the lab bridge) play two
// hypervisors. Each gets a Linux bridge named as kubemix names the cluster bridge, with an
// address on the cluster network (as a bridged hypervisor's libvirt network has), standing in for
// the bridge libvirt makes. kubemix's libvirt_tunnel module, run over SSH, joins them with VXLAN;
// then traffic between the two bridges' addresses crosses it (ARP broadcasts flooded to the peer,
// then unicast), and libvirt_destroy_network removes the device again.
const cluster = 'kmxtun';
const cidrPrefix = '10.213.77';
let lab: Lab;
const transports: Transport[] = [];
const { resources, ledger } = memoryLedger();

function ssh(host: InventoryHost): Transport {
  const transport = createTransport({ ...host, vars: { kubemix_known_hosts: [lab.knownHostsPath] } });
  transports.push(transport);
  return transport;
}

async function run<A>(module: Module<A>, host: InventoryHost, args: Record<string, unknown>) {
  return runModule({
    module: module as Module<unknown>,
    args,
    context: { host, os: 'linux', vars: {}, checkMode: false, ledger },
    transport: ssh(host),
  });
}

const sh = async (host: InventoryHost, command: string) => {
  const transport = ssh(host);
  await transport.connect();
  return transport.exec({ command });
};

const PORT = 47123;
/** Connects to ADDRESS:PORT and prints what it hears (bash's /dev/tcp; the lab has no ping or nc). */
const connectScript = (address: string) =>
  `timeout 5 bash -c 'exec 3<>/dev/tcp/${address}/${PORT} && cat <&3'`;

/**
 * A one-shot TCP server on b's bridge address, and a client on a: returns what a heard. The
 * client starts once the server printed that it listens (an event, not a sleep).
 */
async function talk(a: InventoryHost, b: InventoryHost): Promise<string> {
  const server = ssh(b);
  await server.connect();
  let listening: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    listening = resolve;
  });
  const served = server.exec({
    command: `timeout 30 python3 -c 'import socket; s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("${cidrPrefix}.2", ${PORT})); s.listen(1); print("listening", flush=True); c, _ = s.accept(); c.sendall(b"across the tunnel"); c.close()'`,
    onOutput: (chunk) => {
      if (chunk.data.includes('listening')) listening();
    },
  });
  await Promise.race([ready, served]);
  const heard = await sh(a, connectScript(`${cidrPrefix}.2`));
  await served;
  return heard.stdout.trim();
}

const common = { uri: 'qemu:///system', cluster, dataDir: '/var/lib/kubemix-tests-tunnel', pool: 'unused' };

beforeAll(async () => {
  lab = await startLab({ count: 2 });
  if (lab.mode !== 'netns') throw new Error('this test needs network namespaces');
  for (const [index, host] of lab.hosts.entries()) {
    const bridge = bridgeName(cluster, host.name);
    const made = await sh(
      host,
      `ip link add ${bridge} type bridge && ip addr add ${cidrPrefix}.${index + 1}/24 dev ${bridge} && ip link set ${bridge} up`,
    );
    expect(made.exitCode, made.stderr).toBe(0);
  }
}, 120_000);

afterAll(async () => {
  for (const transport of transports) await transport.close().catch(() => undefined);
  await lab?.stop();
});

describe('VXLAN tunnel between two hypervisors (network namespaces)', () => {
  const tunnelOf = (host: InventoryHost, peer: InventoryHost): TunnelDefinition => ({
    device: tunnelName(cluster, host.name),
    bridge: bridgeName(cluster, host.name),
    vni: tunnelVni(cluster),
    port: 4790,
    peers: [peer.address],
    mtu: TUNNEL_GUEST_MTU,
  });

  it('joins the bridges: the peers are flooded, traffic crosses, and a second run changes nothing', async () => {
    const [a, b] = lab.hosts as [InventoryHost, InventoryHost];
    const hypervisors = { [a.name]: tunnelOf(a, b), [b.name]: tunnelOf(b, a) };
    for (const host of [a, b]) {
      const made = await run(libvirtTunnelModule, host, { ...common, hypervisors });
      expect(made.failed, made.msg).toBe(false);
      expect(made.data?.['peers']).toEqual({ [(host === a ? b : a).address]: (host === a ? b : a).address });
    }
    const shown = await sh(a, `ip -d -o link show dev ${tunnelName(cluster, a.name)}`);
    expect(shown.stdout).toContain(`vxlan id ${tunnelVni(cluster)} `);
    expect(shown.stdout).toContain('dstport 4790 ');
    expect(shown.stdout).toContain(`master ${bridgeName(cluster, a.name)} `);
    expect(shown.stdout).toContain(`mtu ${TUNNEL_GUEST_MTU} `);
    const fdb = await sh(a, `bridge fdb show dev ${tunnelName(cluster, a.name)}`);
    expect(fdb.stdout).toContain(`00:00:00:00:00:00 dst ${b.address} `);

    // From one bridge's address to the other's: ARP is flooded through the tunnel, the answer
    // comes back through it, then TCP. Nothing else connects the two bridges.
    expect(await talk(a, b)).toBe('across the tunnel');
    const learned = await sh(b, `ip neigh show ${cidrPrefix}.1`);
    expect(learned.stdout).toMatch(/lladdr/);

    const again = await run(libvirtTunnelModule, a, { ...common, hypervisors });
    expect(again.failed, again.msg).toBe(false);
    const fdbAgain = await sh(
      a,
      `bridge fdb show dev ${tunnelName(cluster, a.name)} | grep -c '^00:00:00:00:00:00'`,
    );
    expect(fdbAgain.stdout.trim()).toBe('1');
    expect(resources.map((r) => `${r.location} ${r.kind} ${r.name} ${r.status}`).sort()).toEqual(
      [a, b].map((h) => `${h.name} tunnel ${tunnelName(cluster, h.name)} created`).sort(),
    );
  });

  it('refuses a device of its name with another VNI instead of joining it', async () => {
    const [a, b] = lab.hosts as [InventoryHost, InventoryHost];
    const other = { ...tunnelOf(a, b), vni: tunnelVni(cluster) + 1 };
    const refused = await run(libvirtTunnelModule, a, { ...common, hypervisors: { [a.name]: other } });
    expect(refused.failed).toBe(true);
    expect(refused.msg).toContain(`${tunnelName(cluster, a.name)} exists with another VNI`);
  });

  it('is removed by destroy-network, and nothing crosses any more', async () => {
    const [a, b] = lab.hosts as [InventoryHost, InventoryHost];
    const names = Object.fromEntries(
      [a, b].map((h) => [
        h.name,
        {
          network: networkName(cluster, h.name),
          bridge: bridgeName(cluster, h.name),
          tunnel: tunnelName(cluster, h.name),
        },
      ]),
    );
    for (const host of [a, b]) {
      const gone = await run(libvirtDestroyNetworkModule, host, {
        ...common,
        cidr: `${cidrPrefix}.0/24`,
        hypervisors: names,
        recorded: {},
      });
      expect(gone.failed, gone.msg).toBe(false);
      const listed = await sh(host, `ip -o link show dev ${tunnelName(cluster, host.name)}`);
      expect(listed.exitCode).not.toBe(0);
    }
    expect(resources.every((r) => r.status === 'deleted')).toBe(true);
    await sh(a, `ip neigh flush dev ${bridgeName(cluster, a.name)}`);
    const tried = await sh(a, connectScript(`${cidrPrefix}.2`));
    expect(tried.exitCode).not.toBe(0);
  });
});
