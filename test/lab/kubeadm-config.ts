import { join } from 'node:path';
import { stringify } from 'yaml';
import type { FakeHost } from './helpers.js';

// kubeadm configuration files as the lab tests hand them to the kubeadm stand-in on fake hosts.

/** kubeadm's configuration API at 1.31 and later (extraArgs / kubeletExtraArgs as `{name, value}` lists). */
export const V1BETA4 = 'kubeadm.k8s.io/v1beta4';

/** Configuration documents as one YAML stream, as `kubeadm --config` reads it. */
export const kubeadmYaml = (...docs: object[]) => docs.map((d) => stringify(d)).join('---\n');

/** `kubeadm token create --print-join-command` on the control plane `cp`, split into words. */
export async function printJoinCommand(cp: FakeHost): Promise<string[]> {
  const printed = await cp.run('kubeadm', [
    'token',
    'create',
    '--print-join-command',
    '--kubeconfig',
    join(cp.root, 'etc/kubernetes/admin.conf'),
  ]);
  return printed.stdout.trim().split(/\s+/);
}

/** A JoinConfiguration that finds the cluster by the bootstrap token of a printed join command. */
export function joinConfiguration(
  joinCommand: string[],
  options: { name: string; kubeletExtraArgs: unknown; apiVersion?: string; controlPlane?: object },
) {
  return {
    apiVersion: options.apiVersion ?? V1BETA4,
    kind: 'JoinConfiguration',
    discovery: {
      bootstrapToken: {
        apiServerEndpoint: joinCommand[2],
        token: joinCommand[joinCommand.indexOf('--token') + 1],
        caCertHashes: [joinCommand[joinCommand.indexOf('--discovery-token-ca-cert-hash') + 1]],
      },
    },
    nodeRegistration: { name: options.name, kubeletExtraArgs: options.kubeletExtraArgs },
    ...(options.controlPlane ? { controlPlane: options.controlPlane } : {}),
  };
}
