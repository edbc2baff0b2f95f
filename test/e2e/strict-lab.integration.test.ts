import { cp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeLabSpec } from '../../fixtures/cluster-lab/lab-spec.js';
import { type ClusterLab, startClusterLab } from '../../fixtures/lab/cluster-lab.js';
import { kubemixCli } from '../../scripts/lab/kubemix-cli.js';
import { testTempDir } from '../helpers/temp.js';
import { tempClusterDir } from './helpers.js';

// Issue 9 item 7 end to end: what a real cluster rejects must fail `kubemix up` in the lab too. Each
// case runs kubemix from a copy of this checkout (dist/ and playbooks/) whose playbooks carry one
// mistake a user could make in them, on one lab host, and expects the real tools' refusal. On the
// lab before item 7 every one of these builds succeeded.
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
let lab: ClusterLab;
const made: string[] = [];

beforeAll(async () => {
  lab = await startClusterLab({ count: 1 });
});

afterAll(async () => {
  await lab?.stop();
  await Promise.all(made.map((d) => rm(d, { recursive: true, force: true })));
});

/** One change to a playbook file of the copy: `from` must be there (so a changed playbook fails loudly here). */
interface Edit {
  file: string;
  from: string | RegExp;
  to: string;
}

/** A copy of kubemix (dist/, playbooks/, package.json; node_modules linked) with `edits` applied. */
async function brokenKubemix(edits: Edit[]): Promise<string> {
  const root = await testTempDir('strict-product');
  made.push(root);
  await cp(join(repoRoot, 'dist'), join(root, 'dist'), { recursive: true });
  await cp(join(repoRoot, 'playbooks'), join(root, 'playbooks'), { recursive: true });
  await cp(join(repoRoot, 'package.json'), join(root, 'package.json'));
  await symlink(join(repoRoot, 'node_modules'), join(root, 'node_modules'));
  for (const edit of edits) {
    const path = join(root, 'playbooks', edit.file);
    const text = await readFile(path, 'utf8');
    expect(text, `${edit.file} still has what this case changes`).toMatch(edit.from);
    await writeFile(path, text.replace(edit.from, edit.to));
  }
  return kubemixCli(root);
}

// The flannel waits give up after 20 s instead of 300 s: what fails here never converges.
const SHORT_WAITS: Edit = {
  file: 'cluster/install-flannel.yml',
  from: /--timeout=300s/g,
  to: '--timeout=20s',
};

/** `kubemix up` (to verify) with the broken copy on the lab host, then `down`; the up's result. */
async function upWith(edits: Edit[]) {
  const cli = await brokenKubemix(edits);
  const dir = await tempClusterDir();
  made.push(dir);
  const spec = await writeLabSpec(dir, {
    name: 'strict',
    linuxHosts: lab.hosts.slice(0, 1),
    controllers: 1,
    knownHostsPath: lab.knownHostsPath,
    privateKeyPath: lab.privateKeyPath,
  });
  const run = (args: string[]) =>
    execa('node', [cli, ...args, spec, '--cluster-dir', join(dir, 'cluster')], {
      cwd: repoRoot,
      reject: false,
      env: { CI: 'true' },
    });
  const up = await run(['up', '--stop-before', 'verify']);
  const events = await lab.cluster.events();
  const down = await run(['down']);
  expect(down.exitCode, down.stdout + down.stderr).toBe(0);
  return { exitCode: up.exitCode, output: `${up.stdout}\n${up.stderr}`, events };
}

describe('kubemix up fails in the lab where a real cluster would refuse', () => {
  it('a manifest with an unknown field: kubectl apply meets strict field validation', {
    timeout: 300_000,
  }, async () => {
    const up = await upWith([
      {
        file: 'templates/manifests/kube-flannel.yaml.j2',
        from: '      hostNetwork: true\n',
        to: '      nodeSelectr:\n        kubernetes.io/os: linux\n      hostNetwork: true\n',
      },
    ]);
    expect(up.exitCode).not.toBe(0);
    expect(up.output).toContain(
      'DaemonSet in version "v1" cannot be handled as a DaemonSet: strict decoding error: unknown field "spec.template.spec.nodeSelectr"',
    );
  });

  it('a mistyped flag: kubectl refuses it with its usage hint', { timeout: 300_000 }, async () => {
    const up = await upWith([
      {
        file: 'cluster/install-flannel.yml',
        from: 'rollout status ds/kube-flannel-ds --timeout=300s',
        to: 'rollout status ds/kube-flannel-ds --timeout=300s --node-nmae=lab-01',
      },
    ]);
    expect(up.exitCode).not.toBe(0);
    expect(up.output).toMatch(
      /error: unknown flag: --node-nmae\n\s*See 'kubectl rollout status --help' for usage\./,
    );
  });

  it('no pod subnet in the kubeadm config: no node CIDRs, flanneld cannot get a lease', {
    timeout: 300_000,
  }, async () => {
    const up = await upWith([
      {
        file: 'templates/linux/kubeadm-config.yaml.j2',
        from: '  podSubnet: {{ pod_cidr | to_json }}\n',
        to: '',
      },
      SHORT_WAITS,
    ]);
    expect(up.exitCode).not.toBe(0);
    expect(up.output).toContain('Wait for the flannel DaemonSet rollout');
    expect(up.events.map((e) => e.message).join('\n')).toContain(
      'Error registering network: failed to acquire lease: node "lab-01" pod cidr not assigned',
    );
  });

  it("flannel's Network not holding the cluster's pod subnet: flanneld refuses the node's CIDR", {
    timeout: 300_000,
  }, async () => {
    const up = await upWith([
      {
        file: 'templates/manifests/kube-flannel.yaml.j2',
        from: '"Network": {{ pod_cidr | dump }},',
        to: '"Network": "10.245.0.0/16",',
      },
      SHORT_WAITS,
    ]);
    expect(up.exitCode).not.toBe(0);
    expect(up.events.map((e) => e.message).join('\n')).toContain(
      'subnet "10.245.0.0/16" specified in the flannel net config doesn\'t contain "10.244.0.0/24" PodCIDR of the "lab-01" node',
    );
  });

  it('a flannel DaemonSet that writes no CNI config: the node never becomes Ready', {
    timeout: 300_000,
  }, async () => {
    const up = await upWith([
      {
        file: 'templates/manifests/kube-flannel.yaml.j2',
        from: / {6}- name: install-cni\n(?: {8}.*\n)+?(?= {6}containers:)/,
        to: '',
      },
      SHORT_WAITS,
    ]);
    expect(up.exitCode).not.toBe(0);
    expect(up.output).toContain('Wait for the control-plane nodes to be Ready');
    expect(up.output).toContain('timed out waiting for the condition');
  });
});
