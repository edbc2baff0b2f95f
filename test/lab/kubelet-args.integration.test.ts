import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ClusterState } from '../../fixtures/lab/cluster-state.js';
import { testTempDir } from '../helpers/temp.js';
import { type FakeHost, fakeHost } from './helpers.js';
import { joinConfiguration, kubeadmYaml, printJoinCommand, V1BETA4 } from './kubeadm-config.js';

// kubeletExtraArgs from kubeadm's configuration files reach the kubelet through
// /var/lib/kubelet/kubeadm-flags.env, and a flag the kubelet does not know stops it, as on a
// real node. Stand-ins run as child processes on fake hosts (their own root, shared state).

describe('kubelet args through kubeadm configuration files', () => {
  let stateDir: string;
  let cp: FakeHost;
  let joinCommand: string[];

  const joinConfig = (name: string, kubeletExtraArgs: unknown, apiVersion = V1BETA4) =>
    joinConfiguration(joinCommand, { name, kubeletExtraArgs, apiVersion });

  beforeAll(async () => {
    stateDir = await testTempDir('state');
    cp = await fakeHost(stateDir, 'cp1', '10.9.1.2');
    await writeFile(
      join(cp.root, 'init.yaml'),
      kubeadmYaml(
        {
          apiVersion: V1BETA4,
          kind: 'InitConfiguration',
          localAPIEndpoint: { advertiseAddress: '10.9.1.2' },
          nodeRegistration: {
            name: 'cp1',
            kubeletExtraArgs: [
              { name: 'node-ip', value: '10.9.1.2' },
              { name: 'max-pods', value: '42' },
            ],
          },
        },
        {
          apiVersion: V1BETA4,
          kind: 'ClusterConfiguration',
          controlPlaneEndpoint: '10.9.1.2:6443',
          networking: { podSubnet: '10.244.0.0/16' },
        },
      ),
    );
    const init = await cp.run('kubeadm', ['init', '--config', join(cp.root, 'init.yaml')]);
    expect(init.stderr).toBe('');
    joinCommand = await printJoinCommand(cp);
  });

  it('writes InitConfiguration kubeletExtraArgs into kubeadm-flags.env, sorted, beside kubeadm’s own', async () => {
    expect(await readFile(join(cp.root, 'var/lib/kubelet/kubeadm-flags.env'), 'utf8')).toBe(
      'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///var/run/containerd/containerd.sock --hostname-override=cp1 --max-pods=42 --node-ip=10.9.1.2 --pod-infra-container-image=registry.k8s.io/pause:3.10"\n',
    );
    expect((await cp.run('systemctl', ['is-active', 'kubelet'])).stdout).toBe('active\n');
  });

  it('joins a worker from a JoinConfiguration; v1beta3 takes the map form, v1beta4 refuses it', async () => {
    const w1 = await fakeHost(stateDir, 'w1', '10.9.1.3');
    const file = join(w1.root, 'join.yaml');
    await writeFile(file, kubeadmYaml(joinConfig('w1', { 'node-labels': 'tier=a' })));
    const refused = await w1.run('kubeadm', ['join', '--config', file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'json: cannot unmarshal object into Go struct field NodeRegistrationOptions.nodeRegistration.kubeletExtraArgs of type []v1beta4.Arg',
    );
    const mixed = await w1.run('kubeadm', ['join', '--config', file, '--token', 'abcdef.0123456789abcdef']);
    expect(mixed.stderr).toContain("can not mix '--config' with arguments [token]");
    await writeFile(
      file,
      kubeadmYaml(joinConfig('w1', { 'node-labels': 'tier=a' }, 'kubeadm.k8s.io/v1beta3')),
    );
    const joined = await w1.run('kubeadm', ['join', '--config', file]);
    expect(joined.stderr).toBe('');
    expect(joined.code).toBe(0);
    expect(await readFile(join(w1.root, 'var/lib/kubelet/kubeadm-flags.env'), 'utf8')).toContain(
      ' --node-labels=tier=a ',
    );
    const node = await ClusterState.open(stateDir).getObject('Node', undefined, 'w1');
    expect(node?.metadata.name).toBe('w1');
  });

  it('fails the join when the kubelet refuses a flag it does not know, and registers no node', async () => {
    const w2 = await fakeHost(stateDir, 'w2', '10.9.1.4');
    const file = join(w2.root, 'join.yaml');
    await writeFile(file, kubeadmYaml(joinConfig('w2', [{ name: 'node-nmae', value: 'w2' }])));
    const join2 = await w2.run('kubeadm', ['join', '--config', file]);
    expect(join2.code).toBe(1);
    expect(join2.stdout).toContain('[kubelet-start] Waiting for the kubelet to perform the TLS Bootstrap...');
    expect(join2.stderr).toContain("[kubelet-check] It seems like the kubelet isn't running or healthy.");
    expect(join2.stderr).toContain(
      'error execution phase kubelet-start: timed out waiting for the condition',
    );
    expect(await ClusterState.open(stateDir).getObject('Node', undefined, 'w2')).toBeUndefined();
    // systemd keeps restarting it; its journal says why.
    const status = await w2.run('systemctl', ['status', 'kubelet']);
    expect(status.stdout).toContain('activating (auto-restart)');
    expect(status.stdout).toContain(
      '"command failed" err="failed to parse kubelet flag: unknown flag: --node-nmae"',
    );
    const direct = await w2.run('kubelet', ['--node-nmae=w2']);
    expect(direct.code).toBe(1);
    expect(direct.stderr).toContain('failed to parse kubelet flag: unknown flag: --node-nmae');
  });
});
