import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ClusterState } from '../../fixtures/lab/cluster-state.js';
import { testTempDir } from '../helpers/temp.js';
import { type FakeHost, fakeHost } from './helpers.js';

// Issue 9 item 7: the stand-ins must refuse what the real tools refuse. A mistyped flag or field
// fails with the real tool's words and exit code (fixtures/lab/standins/flag-errors.ts cites where
// each comes from; the Debian tools' were measured on Debian 12) and changes nothing.

/** cp1 after `kubeadm init` from a v1beta4 config, and the admin kubeconfig. */
async function initialisedHost(): Promise<{ cp: FakeHost; admin: string; state: ClusterState }> {
  const stateDir = await testTempDir('state');
  const cp = await fakeHost(stateDir, 'cp1', '10.9.0.2');
  const config = join(cp.root, 'kubeadm.yaml');
  await writeFile(
    config,
    [
      { apiVersion: 'kubeadm.k8s.io/v1beta4', kind: 'InitConfiguration', nodeRegistration: { name: 'cp1' } },
      {
        apiVersion: 'kubeadm.k8s.io/v1beta4',
        kind: 'ClusterConfiguration',
        kubernetesVersion: 'v1.31.2',
        networking: { podSubnet: '10.244.0.0/16' },
      },
    ]
      .map((d) => stringify(d))
      .join('---\n'),
  );
  const init = await cp.run('kubeadm', ['init', '--config', config]);
  expect(init.stderr).toBe('');
  return { cp, admin: join(cp.root, 'etc/kubernetes/admin.conf'), state: ClusterState.open(stateDir) };
}

describe('kubectl apply: strict field validation, as the API server does by default', () => {
  it('refuses a Pod with nodeSelectr with the strict decoding error, and a DaemonSet naming every unknown field', async () => {
    const { cp, admin, state } = await initialisedHost();
    const manifest = join(cp.root, 'broken.yaml');
    await writeFile(
      manifest,
      [
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'p', namespace: 'default' },
          spec: {
            nodeSelectr: { 'kubernetes.io/os': 'linux' },
            containers: [{ name: 'c', image: 'busybox' }],
          },
        },
        {
          apiVersion: 'apps/v1',
          kind: 'DaemonSet',
          metadata: { name: 'ds', namespace: 'default', lables: { app: 'x' } },
          spec: {
            selector: { matchLabels: { app: 'x' } },
            template: {
              metadata: { labels: { app: 'x' } },
              spec: {
                containers: [
                  { name: 'a', image: 'busybox' },
                  { name: 'b', image: 'busybox', imagePullPolic: 'Always' },
                ],
              },
            },
          },
        },
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'good', namespace: 'default' },
          data: { k: 'v' },
        },
      ]
        .map((d) => stringify(d))
        .join('---\n'),
    );
    const r = await cp.run('kubectl', ['--kubeconfig', admin, 'apply', '-f', manifest]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      [
        `Error from server (BadRequest): error when creating "${manifest}": Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.nodeSelectr"`,
        `Error from server (BadRequest): error when creating "${manifest}": DaemonSet in version "v1" cannot be handled as a DaemonSet: strict decoding error: unknown field "metadata.lables", unknown field "spec.template.spec.containers[1].imagePullPolic"`,
        '',
      ].join('\n'),
    );
    expect(r.stdout).toBe('configmap/good created\n');
    expect(await state.getObject('DaemonSet', 'default', 'ds')).toBeUndefined();
  });
});

describe('kubeadm init without a pod subnet', () => {
  it('invents none: the node gets no podCIDR, as the controller-manager then allocates none', async () => {
    const stateDir = await testTempDir('state');
    const cp = await fakeHost(stateDir, 'cp1', '10.9.0.2');
    const init = await cp.run('kubeadm', ['init', '--node-name', 'cp1']);
    expect(init.stderr).toBe('');
    const admin = join(cp.root, 'etc/kubernetes/admin.conf');
    const podCidr = await cp.run('kubectl', [
      '--kubeconfig',
      admin,
      'get',
      'node',
      'cp1',
      '-o',
      'jsonpath={.spec.podCIDR}',
    ]);
    expect(podCidr).toEqual({ code: 0, stdout: '', stderr: '' });
    expect((await ClusterState.open(stateDir).cluster())?.podCIDR).toBe('');
  });
});

describe('unknown flags: every stand-in refuses them as the real tool does', () => {
  it('kubectl and kubeadm (cobra): the error, the usage hint, exit 1, nothing done', async () => {
    const { cp, admin, state } = await initialisedHost();
    const get = await cp.run('kubectl', ['--kubeconfig', admin, 'get', 'nodes', '--node-nmae', 'x']);
    expect(get).toEqual({
      code: 1,
      stdout: '',
      stderr: "error: unknown flag: --node-nmae\nSee 'kubectl get --help' for usage.\n",
    });
    const rollout = await cp.run('kubectl', ['rollout', 'status', 'ds/x', '-z']);
    expect(rollout.stderr).toBe(
      "error: unknown shorthand flag: 'z' in -z\nSee 'kubectl rollout status --help' for usage.\n",
    );
    // A real kubectl flag the stand-in does not model is not called unknown.
    expect((await cp.run('kubectl', ['--context', 'x', 'get', 'nodes'])).stderr).toMatch(
      /^kubemix lab: not simulated: the kubectl stand-in does not model --context/,
    );
    const join = await cp.run('kubeadm', ['join', '10.9.0.2:6443', '--node-nmae', 'w1', '--token', 'x']);
    expect(join).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'unknown flag: --node-nmae\nTo see the stack trace of this error execute with --v=5 or higher\n',
    });
    expect((await cp.run('kubeadm', ['reset', '--forse'])).stderr).toMatch(/^unknown flag: --forse\n/);
    expect((await state.read()).nodes.map((n) => n.name)).toEqual(['cp1']);
  });

  it('containerd tools (urfave/cli) and the Debian tools: their own words and exit codes', async () => {
    const stateDir = await testTempDir('state');
    const host = await fakeHost(stateDir, 'h1', '10.9.0.5');
    const cases: [string, string[], { code: number; stderr: string; stdout?: string }][] = [
      [
        'ctr',
        ['-n', 'k8s.io', 'images', 'ls', '--quite'],
        {
          code: 1,
          stdout: 'Incorrect Usage: flag provided but not defined: -quite\n',
          stderr: 'ctr: flag provided but not defined: -quite\n',
        },
      ],
      [
        'ctr',
        ['--namespac', 'k8s.io', 'images', 'ls'],
        {
          code: 1,
          stdout: 'Incorrect Usage. flag provided but not defined: -namespac\n',
          stderr: 'ctr: flag provided but not defined: -namespac\n',
        },
      ],
      [
        'crictl',
        ['ps', '--node-nmae'],
        {
          code: 1,
          stderr: 'time="2024-01-01T00:00:00Z" level=fatal msg="flag provided but not defined: -node-nmae"\n',
        },
      ],
      [
        'systemctl',
        ['restart', 'kubelet', '--node-nmae'],
        { code: 1, stderr: "systemctl: unrecognized option '--node-nmae'\n" },
      ],
      [
        'apt-get',
        ['install', '-y', '--no-install-recomends', 'kubelet'],
        {
          code: 100,
          stderr:
            'E: Command line option --no-install-recomends is not understood in combination with the other options\n',
        },
      ],
      [
        'dpkg-query',
        ['-W', '--node-nmae', 'kubelet'],
        {
          code: 2,
          stderr:
            'dpkg-query: error: unknown option --node-nmae\n\nUse --help for help about querying packages.\n',
        },
      ],
      [
        'modprobe',
        ['--node-nmae', 'overlay'],
        { code: 1, stderr: "modprobe: unrecognized option '--node-nmae'\n" },
      ],
      ['lsmod', ['-a'], { code: 1, stderr: 'Usage: lsmod\n' }],
      [
        'curl',
        ['--node-nmae', 'https://example.com/'],
        {
          code: 2,
          stderr:
            "curl: option --node-nmae: is unknown\ncurl: try 'curl --help' or 'curl --manual' for more information\n",
        },
      ],
      ['gpg', ['--dearmour'], { code: 2, stderr: 'invalid option "--dearmour"\n' }],
      [
        'ip',
        ['--node-nmae', 'link', 'show', 'cni0'],
        { code: 255, stderr: 'Option "-node-nmae" is unknown, try "ip -help".\n' },
      ],
    ];
    for (const [program, args, expected] of cases) {
      const ran = await host.run(program, args);
      expect({ program, code: ran.code, stderr: ran.stderr, stdout: ran.stdout }).toEqual({
        program,
        stdout: '',
        ...expected,
      });
    }
    // A fresh host (swap on): the mistyped swapoff changes nothing.
    const fresh = await fakeHost(stateDir, 'h2', '10.9.0.6', false);
    expect(await fresh.run('swapoff', ['--al'])).toEqual({
      code: 16,
      stdout: '',
      stderr: "swapoff: unrecognized option '--al'\nTry 'swapoff --help' for more information.\n",
    });
    expect((await fresh.run('swapon', ['--show', '--noheadings'])).stdout).toBe(
      '/swap.img file   2G   0B   -2\n',
    );
  });
});
