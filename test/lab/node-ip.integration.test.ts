import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ClusterState } from '../../fixtures/lab/cluster-state.js';
import { testTempDir } from '../helpers/temp.js';
import { joinConfiguration, kubeadmYaml, printJoinCommand } from './kubeadm-config.js';
import { host, init } from './pinned-kubeadm-host.js';

// A node-ip or advertise address the host does not hold (an EC2 public address, NAT-mapped
// outside the instance) is refused as the real tools refuse it: the kubelet registers the Node
// without an address (validateNodeIP), etcd cannot bind and the control plane never starts.
// Stand-ins run as child processes on fake hosts (their own root, shared state).

const FOREIGN = '203.0.113.7';
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
    const cp = await host(stateDir, 'cp0', '10.9.2.1');
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

    const joinConfig = (name: string, nodeIp: string, controlPlane?: object) =>
      joinConfiguration(joinCommand, {
        name,
        kubeletExtraArgs: [{ name: 'node-ip', value: nodeIp }],
        ...(controlPlane ? { controlPlane } : {}),
      });

    beforeAll(async () => {
      stateDir = await testTempDir('state');
      const cp = await host(stateDir, 'cp1', '10.9.2.2');
      const started = await init(cp, 'cp1', '10.9.2.2');
      expect(started.stderr).toBe('');
      certificateKey = /--certificate-key (\S+)/.exec(started.stdout)![1]!;
      joinCommand = await printJoinCommand(cp);
    });

    it('a worker whose kubelet is given a foreign node-ip joins, and its Node has no address', async () => {
      const own = await host(stateDir, 'w1', '10.9.2.3');
      await writeFile(join(own.root, 'join.yaml'), kubeadmYaml(joinConfig('w1', '10.9.2.3')));
      expect((await own.run('kubeadm', ['join', '--config', join(own.root, 'join.yaml')])).code).toBe(0);
      expect(await internalIps(stateDir, 'w1')).toEqual(['10.9.2.3']);

      const foreign = await host(stateDir, 'w2', '10.9.2.4');
      await writeFile(join(foreign.root, 'join.yaml'), kubeadmYaml(joinConfig('w2', FOREIGN)));
      const joined = await foreign.run('kubeadm', ['join', '--config', join(foreign.root, 'join.yaml')]);
      expect(joined.code).toBe(0);
      expect(await internalIps(stateDir, 'w2')).toEqual([]);
    });

    it('a control plane advertising a foreign address: its etcd never joins, kubeadm join fails', async () => {
      const h = await host(stateDir, 'cp2', '10.9.2.5');
      await writeFile(
        join(h.root, 'join.yaml'),
        kubeadmYaml(
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
