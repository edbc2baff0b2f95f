import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { buildPlan } from '../../src/plan/index.js';
import { playbooksDir } from '../../src/playbook/cluster-playbooks.js';
import { type ClusterSpecInput, clusterSpecSchema } from '../../src/spec/schema.js';
import { renderString } from '../../src/template/index.js';
import { loadVersions } from '../../src/versions/versions.js';

/** A `kubeadm token create --print-join-command` output (made-up token and CA hash). */
export const JOIN_COMMAND =
  'kubeadm join 10.0.0.11:6443 --token abcdef.0123456789abcdef --discovery-token-ca-cert-hash sha256:' +
  'a'.repeat(64);

/** The vars a node of `spec` gets from the plan: the plan's vars and its host vars. */
export function planHostVars(spec: ClusterSpecInput, host: string): Record<string, unknown> {
  const plan = buildPlan({ spec: clusterSpecSchema.parse(spec), versions: loadVersions(), clusterDir: '/c' });
  const found = plan.hosts.find((h) => h.name === host);
  if (!found) throw new Error(`no host ${host} in the plan`);
  return { ...plan.vars, ...found.vars };
}

/**
 * What playbooks/templates/linux/kubeadm-config.yaml.j2 writes for a node with these vars (the
 * plan's and the host's): `init` on the first controller, `join` on a worker, `join-control-plane`
 * on another controller (with a certificate key).
 */
export function linuxKubeadmConfiguration(
  vars: Record<string, unknown>,
  kind: 'init' | 'join' | 'join-control-plane',
  host: { name: string; address: string },
): string {
  const template = readFileSync(join(playbooksDir(), 'templates', 'linux', 'kubeadm-config.yaml.j2'), 'utf8');
  return renderString(template, {
    ...vars,
    ...(kind === 'init' ? {} : { kubeadm_config: 'join', kubeadm_join_command: JOIN_COMMAND }),
    ...(kind === 'join-control-plane' ? { kubeadm_certificate_key: 'b'.repeat(64) } : {}),
    inventory_hostname: host.name,
    node_ip: host.address,
  });
}

/** The JoinConfiguration join-windows-workers.yml writes on a Windows node with these vars. */
export function windowsJoinConfiguration(
  vars: Record<string, unknown>,
  host: { name: string; address: string },
): string {
  const tasks = parse(readFileSync(join(playbooksDir(), 'cluster', 'join-windows-workers.yml'), 'utf8')) as {
    name: string;
    win_copy?: { content?: string };
  }[];
  const content = tasks.find((t) => t.name === 'kubeadm join configuration')?.win_copy?.content;
  if (!content) throw new Error('join-windows-workers.yml has no kubeadm join configuration step');
  return renderString(content, {
    ...vars,
    outputs: { join_command: JOIN_COMMAND },
    inventory_hostname: host.name,
    ansible_host: host.address,
  });
}
