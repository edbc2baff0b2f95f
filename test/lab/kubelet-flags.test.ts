import { describe, expect, it } from 'vitest';
import {
  environmentFileWords,
  KubeletFlagError,
  kubeadmFlagsEnv,
  parseKubeletArgs,
} from '../../fixtures/lab/kubelet-flags.js';
import { defaultRouteInterfaces } from '../../fixtures/lab/standins/tools/host-network.js';

describe('the kubelet command line', () => {
  it('takes the forms pflag takes and refuses a flag the kubelet does not have, in its words', () => {
    expect(
      parseKubeletArgs(
        ['--node-ip=10.0.0.5', '--max-pods', '50', '--fail-swap-on', '-v', '2', '--v=3'],
        'linux',
        '1.36.4',
      ),
    ).toEqual([
      { name: 'node-ip', value: '10.0.0.5' },
      { name: 'max-pods', value: '50' },
      { name: 'fail-swap-on', value: 'true' },
      { name: 'v', value: '2' },
      { name: 'v', value: '3' },
    ]);
    expect(() => parseKubeletArgs(['--node-nmae=x'], 'linux', '1.36.4')).toThrow(
      new KubeletFlagError('failed to parse kubelet flag: unknown flag: --node-nmae'),
    );
    expect(() => parseKubeletArgs(['--max-pods'], 'linux', '1.36.4')).toThrow(
      'flag needs an argument: --max-pods',
    );
    // --windows-priorityclass exists only in the Windows kubelet.
    expect(() =>
      parseKubeletArgs(['--windows-priorityclass=ABOVE_NORMAL_PRIORITY_CLASS'], 'linux', '1.36.4'),
    ).toThrow('unknown flag: --windows-priorityclass');
    expect(
      parseKubeletArgs(['--windows-priorityclass=ABOVE_NORMAL_PRIORITY_CLASS'], 'windows', '1.36.4'),
    ).toHaveLength(1);
  });

  it('knows --pod-infra-container-image up to kubelet 1.34 and refuses it from 1.35 (kubernetes#133779)', () => {
    const flag = ['--pod-infra-container-image=registry.k8s.io/pause:3.10'];
    expect(parseKubeletArgs(flag, 'linux', '1.34.8-1.1')).toHaveLength(1);
    for (const version of ['1.35.9-1.1', 'v1.36.4']) {
      for (const os of ['linux', 'windows'] as const)
        expect(() => parseKubeletArgs(flag, os, version)).toThrow(
          new KubeletFlagError('failed to parse kubelet flag: unknown flag: --pod-infra-container-image'),
        );
    }
  });
});

describe('kubeadm-flags.env', () => {
  it('lets an extra arg replace every base flag of its name, sorts by name, and quotes like Go %q', () => {
    const text = kubeadmFlagsEnv(
      [
        { name: 'pod-infra-container-image', value: 'registry.k8s.io/pause:3.10' },
        { name: 'container-runtime-endpoint', value: 'unix:///var/run/containerd/containerd.sock' },
        { name: 'hostname-override', value: 'node-a' },
      ],
      [
        { name: 'hostname-override', value: 'node-b' },
        { name: 'node-labels', value: 'tier="a b"' },
      ],
    );
    expect(text).toBe(
      'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///var/run/containerd/containerd.sock --hostname-override=node-b --node-labels=tier=\\"a b\\" --pod-infra-container-image=registry.k8s.io/pause:3.10"\n',
    );
    // systemd reads the assignment back (quotes removed), and splits $KUBELET_KUBEADM_ARGS on spaces.
    expect(environmentFileWords(text, 'KUBELET_KUBEADM_ARGS')).toEqual([
      '--container-runtime-endpoint=unix:///var/run/containerd/containerd.sock',
      '--hostname-override=node-b',
      '--node-labels=tier="a',
      'b"',
      '--pod-infra-container-image=registry.k8s.io/pause:3.10',
    ]);
    expect(environmentFileWords('KUBELET_EXTRA_ARGS=--max-pods=10\n', 'KUBELET_EXTRA_ARGS')).toEqual([
      '--max-pods=10',
    ]);
    expect(environmentFileWords('', 'KUBELET_EXTRA_ARGS')).toBeUndefined();
  });
});

describe('default routes', () => {
  it('reads the default route interfaces from /proc/net/route in the kernel order', () => {
    // /proc/net/route of a lab host started with --nat-nic.
    const table = [
      'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT',
      'eth0\t00000000\t0202000A\t0003\t0\t0\t0\t00000000\t0\t0\t0',
      'eth0\t0002000A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0',
      'eth1\t0004E90A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0',
    ].join('\n');
    expect(defaultRouteInterfaces(table)).toEqual(['eth0']);
    expect(
      defaultRouteInterfaces(
        table
          .split('\n')
          .filter((l) => !l.includes('0202000A'))
          .join('\n'),
      ),
    ).toEqual([]);
  });
});
