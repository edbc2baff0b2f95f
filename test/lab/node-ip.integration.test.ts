import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ClusterState } from '../../fixtures/lab/cluster-state.js';
import { testTempDir } from '../helpers/temp.js';
import type { FakeHost } from './helpers.js';
import { host, init } from './pinned-kubeadm-host.js';

// A node-ip or advertise address the host does not hold (an EC2 public address, NAT-mapped
// outside the instance) is refused as the real tools refuse it: the kubelet registers the Node
// without an address (validateNodeIP), etcd cannot bind and the control plane never starts.
// Stand-ins run as child processes on fake hosts (their own root, shared state).

const FOREIGN = '203.0.113.7';
const V1BETA4 = 'kubeadm.k8s.io/v1beta4';
const yaml = (...docs: object[]) => docs.map((d) => stringify(d)).join('---\n');

const made: string[] = [];
afterAll(async () => {
  for (const dir of made) await rm(dir, { recursive: true, force: true });
});

async function labHost(stateDir: string, name: string, address: string): Promise<FakeHost> {
  const h = await host(stateDir, name, address);
  made.push(h.root);
  return h;
}

const internalIps = async (stateDir: string, name: string) =>
  (
    (await ClusterState.open(stateDir).getObject('Node', undefined, name)) as {
      status?: { addresses?: { type: string; address: string }[] };
    }
  )?.status?.addresses
    ?.filter((a) => a.type === 'InternalIP')
    .map((a) => a.address);

describe('addresses a lab host does not hold', () => {
  it('kubeadm init advertising one: etcd cannot bind it, wait-control-plane fails, no cluster', async () => {
    const stateDir = await testTempDir('state');
    made.push(stateDir);
    const cp = await labHost(stateDir, 'cp0', '10.9.2.1');
    const refused = await init(cp, 'cp0', FOREIGN);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `error execution phase wait-control-plane: cannot obtain client without bootstrap`,
    );
    expect(refused.stderr).toContain(`dial tcp ${FOREIGN}:6443: connect: connection refused`);
    expect(await ClusterState.open(stateDir).cluster()).toBeUndefined();
  });

  describe('on a cluster advertised where it should be', () => {
    let stateDir: string;
    let joinCommand: string[];
    let certificateKey: string;

    const joinConfig = (name: string, nodeIp: string, controlPlane?: object) => ({
      apiVersion: V1BETA4,
      kind: 'JoinConfiguration',
      discovery: {
        bootstrapToken: {
          apiServerEndpoint: joinCommand[2],
          token: joinCommand[joinCommand.indexOf('--token') + 1],
          caCertHashes: [joinCommand[joinCommand.indexOf('--discovery-token-ca-cert-hash') + 1]],
        },
      },
      nodeRegistration: { name, kubeletExtraArgs: [{ name: 'node-ip', value: nodeIp }] },
      ...(controlPlane ? { controlPlane } : {}),
    });

    beforeAll(async () => {
      stateDir = await testTempDir('state');
      made.push(stateDir);
      const cp = await labHost(stateDir, 'cp1', '10.9.2.2');
      const started = await init(cp, 'cp1', '10.9.2.2');
      expect(started.stderr).toBe('');
      certificateKey = /--certificate-key (\S+)/.exec(started.stdout)![1]!;
      const printed = await cp.run('kubeadm', [
        'token',
        'create',
        '--print-join-command',
        '--kubeconfig',
        join(cp.root, 'etc/kubernetes/admin.conf'),
      ]);
      joinCommand = printed.stdout.trim().split(/\s+/);
    });

    it('a worker whose kubelet is given a foreign node-ip joins, and its Node has no address', async () => {
      const own = await labHost(stateDir, 'w1', '10.9.2.3');
      await writeFile(join(own.root, 'join.yaml'), yaml(joinConfig('w1', '10.9.2.3')));
      expect((await own.run('kubeadm', ['join', '--config', join(own.root, 'join.yaml')])).code).toBe(0);
      expect(await internalIps(stateDir, 'w1')).toEqual(['10.9.2.3']);

      const foreign = await labHost(stateDir, 'w2', '10.9.2.4');
      await writeFile(join(foreign.root, 'join.yaml'), yaml(joinConfig('w2', FOREIGN)));
      const joined = await foreign.run('kubeadm', ['join', '--config', join(foreign.root, 'join.yaml')]);
      expect(joined.code).toBe(0);
      expect(await internalIps(stateDir, 'w2')).toEqual([]);
    });

    it('a control plane advertising a foreign address: its etcd never joins, kubeadm join fails', async () => {
      const h = await labHost(stateDir, 'cp2', '10.9.2.5');
      await writeFile(
        join(h.root, 'join.yaml'),
        yaml(
          joinConfig('cp2', '10.9.2.5', {
            localAPIEndpoint: { advertiseAddress: FOREIGN },
            certificateKey,
          }),
        ),
      );
      const joined = await h.run('kubeadm', ['join', '--config', join(h.root, 'join.yaml')]);
      expect(joined.code).toBe(1);
      expect(joined.stdout).toContain('[etcd] Waiting for the new etcd member to join the cluster');
      expect(joined.stderr).toContain(
        'error execution phase control-plane-join/etcd: error creating local etcd static pod manifest file: timeout waiting for etcd cluster to be available',
      );
    });
  });
});
