import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { LAB_FSTAB } from '../../fixtures/cluster-lab/lab-spec.js';
import { type Ec2Lab, startEc2Lab } from '../../fixtures/ec2-proxy/ec2-lab.js';
import { MOTO_ENV } from '../../fixtures/ec2-proxy/moto.js';
import { taggedWithCluster } from '../../fixtures/ec2-proxy/moto-data.js';
import { pinnedStaticRelease } from '../../fixtures/lab/static-release.js';
import { MOTO_LINUX_AMI, MOTO_WINDOWS_AMI } from '../provider/ec2/harness.js';
import { kubemix, tempClusterDir } from './helpers.js';

// `kubemix up` on an EC2 spec end to end: moto (behind the fault proxy) creates the instances,
// the EC2 lab gives each one a lab host at its private address with the user data's key, and
// kubemix builds the cluster on them through verify; `down` leaves nothing in moto and no host.
// With the default connectVia (public) kubemix reaches each node on its public address, which
// the lab DNATs to the private one and no interface holds (as on EC2); the cluster must use the
// private addresses, or the lab's kubelet and etcd refuse them as the real ones do.
Object.assign(process.env, MOTO_ENV);
// One lab per listener kind: the lab's cluster state is one cluster's API server.
describe.each(['http', 'https'] as const)('a mixed cluster on "EC2", WinRM over %s', (winrm) => {
  let lab: Ec2Lab;
  let dir: string;

  beforeAll(async () => {
    // Lab hosts for the 2 Linux instances; the Windows one is served by the simulator.
    // Windows instances restart under their node name 2 s after the first logon (real: 30-90 s).
    lab = await startEc2Lab({ capacity: 2, windowsRenameAfterMs: 2000 });
    dir = await tempClusterDir();
  });

  afterAll(async () => {
    await lab?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('up runs through verify on the instances; down leaves nothing in moto and no host', {
    timeout: 300_000,
  }, async () => {
    const root = { user: 'root' };
    const spec = join(dir, `ec2-lab-${winrm}.yaml`);
    await writeFile(
      spec,
      stringify({
        name: `ec2-lab-${winrm}`,
        provider: {
          type: 'ec2',
          region: 'eu-west-1',
          operatorCidr: '127.0.0.0/8',
          winrm,
          endpoint: lab.endpoint,
          vpcCidr: lab.vpcCidr,
          images: { linux: MOTO_LINUX_AMI, windows: MOTO_WINDOWS_AMI },
        },
        nodes: {
          controlPlane: { count: 1, credentials: root },
          workers: [
            { name: 'linux', os: 'linux', count: 1, credentials: root },
            { name: 'win', os: 'windows', count: 1 },
          ],
        },
        vars: { fstab_path: LAB_FSTAB },
        // The lab serves a lab-made containerd static release (Debian's containerd is below the
        // minimum at 1.35+); a spec pins a mirror's files by digest, as here.
        versions: pinnedStaticRelease().versions,
      }),
    );
    const clusterDir = join(dir, 'cluster');
    const up = await kubemix(['up', spec, '--cluster-dir', clusterDir], MOTO_ENV);
    expect(up.exitCode, `${up.stdout}\n${up.stderr}`).toBe(0);
    for (const task of [
      'prepare-provider',
      'create-network',
      'create-hosts',
      'wait-for-hosts',
      'join-linux-workers',
      'join-windows-workers',
      'verify',
    ])
      expect(up.stdout).toContain(`DONE  ${task}`);
    // Every instance got its host; each node joined under the name its user data gave it.
    expect(lab.serving.size).toBe(3);
    const nodes = await lab.linux.cluster.nodes();
    expect(
      nodes
        .map((n) => [n.metadata.name, n.status?.conditions?.find((c) => c.type === 'Ready')?.status])
        .sort(([a], [b]) => String(a).localeCompare(String(b))),
    ).toEqual([
      ['controller-01', 'True'],
      ['linux-01', 'True'],
      ['win-01', 'True'],
    ]);
    const checks = JSON.parse(await readFile(join(clusterDir, 'verify.json'), 'utf8')) as {
      checks: { name: string; ok: boolean }[];
    };
    expect(checks.checks.every((c) => c.ok)).toBe(true);
    // The Windows node was reached on the listener its user data set up; over HTTPS, by the
    // certificate kubemix generated and pinned (the test server presents it; nothing else trusts it).
    const state = JSON.parse(await readFile(join(clusterDir, 'state.json'), 'utf8')) as {
      inventory: {
        name: string;
        address: string;
        nodeAddress?: string;
        port?: number;
        vars?: Record<string, unknown>;
      }[];
    };
    // wait-for-hosts ended only after the Windows instance restarted under its node name (its
    // user data renames it after the first logon): no later task ran under the AMI's name.
    const renamedAt = lab.windowsRenamedAt.get('win-01');
    expect(renamedAt).toBeDefined();
    const waited = (state as unknown as { tasks: Record<string, { finishedAt?: string }> }).tasks[
      'wait-for-hosts'
    ];
    expect(new Date(waited?.finishedAt ?? 0).getTime()).toBeGreaterThanOrEqual(renamedAt!.getTime());
    // kubemix connected over the public addresses; every Node's InternalIP is its private address.
    expect(lab.publicAddresses.size).toBe(3);
    for (const host of state.inventory.filter((h) => h.vars?.['ec2_instance_id'])) {
      const privateIp = String(host.vars?.['ec2_private_ip']);
      expect(host.nodeAddress).toBe(privateIp);
      expect(host.address).toBe(host.vars?.['ec2_public_ip']);
      const node = nodes.find((n) => n.metadata.name === host.name);
      expect(node?.status?.addresses?.filter((a) => a.type === 'InternalIP')).toEqual([
        { type: 'InternalIP', address: privateIp },
      ]);
    }
    // The operator's kubeconfig names the API server at the controller's public address (the one
    // the operator reaches); the nodes' kubeadm configuration keeps the private one.
    const controller = state.inventory.find((h) => h.name === 'controller-01');
    const adminConf = await readFile(join(clusterDir, 'admin.conf'), 'utf8');
    expect(adminConf).toMatch(
      new RegExp(`^ *server: https://${String(controller?.address).replaceAll('.', '\\.')}:6443$`, 'm'),
    );
    const win = state.inventory.find((h) => h.name === 'win-01');
    expect(win?.port).toBe(winrm === 'https' ? 5986 : 5985);
    if (winrm === 'https') expect(win?.vars?.['kubemix_winrm_cert_fingerprint']).toMatch(/^[0-9a-f]{64}$/);
    // The Windows password (GetPasswordData's, decrypted by kubemix) is in secrets.json only.
    const password = [...lab.proxy.windowsPasswords.values()][0]!;
    expect(await readFile(join(clusterDir, 'secrets.json'), 'utf8')).toContain(password);
    expect(await readFile(join(clusterDir, 'state.json'), 'utf8')).not.toContain(password);
    expect(up.stdout + up.stderr).not.toContain(password);

    const down = await kubemix(['down', spec, '--cluster-dir', clusterDir], MOTO_ENV);
    expect(down.exitCode, `${down.stdout}\n${down.stderr}`).toBe(0);
    expect(await taggedWithCluster(lab.moto.url, `ec2-lab-${winrm}`)).toEqual([]);
    expect(lab.serving.size).toBe(0);
    expect(lab.publicAddresses.size).toBe(0);
  });
});
