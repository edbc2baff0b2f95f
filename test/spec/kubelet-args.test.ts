import { describe, expect, it } from 'vitest';
import { parseJoinConfiguration } from '../../fixtures/lab/kubeadm-config.js';
import { kubeletArgPairs } from '../../src/spec/kubelet-args.js';
import { type ClusterSpecInput, clusterSpecSchema } from '../../src/spec/schema.js';
import { loadVersions } from '../../src/versions/versions.js';
import {
  linuxKubeadmConfiguration,
  planHostVars,
  windowsJoinConfiguration,
} from '../helpers/kubeadm-configurations.js';

// One rule for the spec's kubelet flags on Linux and Windows nodes: the plan turns them into
// kubeadm's {name, value} pairs (a bare `--name` is "true") and says whether node-ip is set, and
// both kubeadm configurations the playbooks write render from those pairs. The rendered files are
// read back with the lab's kubeadm decoder (fixtures/lab/kubeadm-config.ts), at the kubeadm of the
// pinned Kubernetes version.

const KUBEADM = `v${loadVersions()['kubernetes']}`;
/** A static spec with one Linux and one Windows worker, both given `args`. */
function spec(args: string[]): ClusterSpecInput {
  return {
    name: 'lab',
    provider: {
      type: 'static',
      hosts: [
        { name: 'cp1', address: '10.0.0.11', group: 'control-plane' },
        { name: 'lw1', address: '10.0.0.12', group: 'linux' },
        {
          name: 'win1',
          address: '10.0.0.13',
          group: 'windows',
          credentials: { user: 'Administrator', password: { env: 'WIN_PASSWORD' } },
        },
      ],
    },
    nodes: {
      controlPlane: { count: 1 },
      workers: [
        { name: 'linux', os: 'linux', count: 1, kubeletExtraArgs: args },
        { name: 'windows', os: 'windows', count: 1, kubeletExtraArgs: args },
      ],
    },
  };
}

/** The vars a node of `spec(args)` gets from the plan: the plan's vars and its host vars. */
const hostVars = (args: string[], host: string) => planHostVars(spec(args), host);

/** kubeletExtraArgs of both nodes' JoinConfigurations, as kubeadm reads them. */
function renderedArgs(args: string[]): { linux: [string, string][]; windows: [string, string][] } {
  const read = (text: string) => parseJoinConfiguration(text, 'kubeadm-join.yaml', KUBEADM).kubeletExtraArgs;
  return {
    linux: read(
      linuxKubeadmConfiguration(hostVars(args, 'lw1'), 'join', { name: 'lw1', address: '10.0.0.12' }),
    ),
    windows: read(windowsJoinConfiguration(hostVars(args, 'win1'), { name: 'win1', address: '10.0.0.13' })),
  };
}

describe('kubeletArgPairs', () => {
  it('takes the value after the first "=", and "true" for a bare flag', () => {
    expect(
      kubeletArgPairs(['--system-reserved=memory=1.5Gi', '--max-pods=', '--rotate-certificates']),
    ).toEqual([
      { name: 'system-reserved', value: 'memory=1.5Gi' },
      { name: 'max-pods', value: '' },
      { name: 'rotate-certificates', value: 'true' },
    ]);
  });
});

describe('kubelet flags in the kubeadm configurations of both OSes', () => {
  it('the spec takes a bare flag', () => {
    const parsed = clusterSpecSchema.safeParse(spec(['--rotate-certificates']));
    expect(parsed.success).toBe(true);
  });

  it('a bare flag is "true" on Windows and on Linux', () => {
    const { linux, windows } = renderedArgs(['--rotate-certificates', '--max-pods=50']);
    expect(windows).toEqual([
      ['rotate-certificates', 'true'],
      ['max-pods', '50'],
      ['node-ip', '10.0.0.13'],
    ]);
    expect(linux).toEqual([
      ['node-ip', '10.0.0.12'],
      ['rotate-certificates', 'true'],
      ['max-pods', '50'],
    ]);
  });

  it('a node-ip the spec gives, with a value or bare, is the only one on both', () => {
    const given = renderedArgs(['--node-ip=192.0.2.7']);
    expect(given.windows).toEqual([['node-ip', '192.0.2.7']]);
    expect(given.linux).toEqual([['node-ip', '192.0.2.7']]);
    const bare = renderedArgs(['--node-ip']);
    expect(bare.windows).toEqual([['node-ip', 'true']]);
    expect(bare.linux).toEqual([['node-ip', 'true']]);
  });

  it('without flags each node gets only its own node-ip', () => {
    const vars = hostVars([], 'lw1');
    expect(vars['kubelet_extra_args']).toBeUndefined();
    expect(renderedArgs([]).linux).toEqual([['node-ip', '10.0.0.12']]);
  });
});
