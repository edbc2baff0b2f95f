/**
 * The one rule for the spec's kubelet flags, on Linux and Windows nodes alike: kubeadm's
 * `nodeRegistration.kubeletExtraArgs` is a list of `{name, value}` (kubeadm v1beta4, the only
 * API of the supported Kubernetes versions: v1beta3 was removed in 1.36, kubernetes#136016), and
 * kubeadm writes each as `--name=value` into kubeadm-flags.env. A bare `--name` in the spec is a
 * boolean flag switched on, so its value is "true" (what the kubelet's flag parser, spf13/pflag,
 * makes of a bare boolean flag). The playbooks render kubeadm's configuration from these pairs
 * (playbooks/templates/linux/kubeadm-config.yaml.j2, playbooks/cluster/join-windows-workers.yml)
 * instead of splitting strings in Jinja, so both OSes read a flag the same way.
 */

/** One kubelet flag as kubeadm's `kubeletExtraArgs` lists it: the name without `--`. */
export interface KubeletArgPair {
  name: string;
  value: string;
}

/**
 * `--name=value` -> `{name, value}` (the value is everything after the first `=`, which may hold
 * more `=`: `--system-reserved=memory=1.5Gi`); `--name` -> `{name, value: 'true'}`. The spec
 * schema has already refused anything that is not a flag (field-patterns.ts KUBELET_ARG).
 */
export function kubeletArgPairs(args: readonly string[]): KubeletArgPair[] {
  return args.map((arg) => {
    const flag = arg.replace(/^--/, '');
    const at = flag.indexOf('=');
    return at < 0 ? { name: flag, value: 'true' } : { name: flag.slice(0, at), value: flag.slice(at + 1) };
  });
}

/**
 * Playbook host vars of a node's kubelet flags: `kubelet_extra_args`, the pairs, and
 * `kubelet_node_ip_given`, whether the spec sets `node-ip` itself (bare or with a value), in
 * which case the playbooks add no `node-ip` of their own. Empty when there are no flags.
 */
export function kubeletArgVars(args: readonly string[]): Record<string, unknown> {
  if (args.length === 0) return {};
  const pairs = kubeletArgPairs(args);
  return {
    kubelet_extra_args: pairs,
    kubelet_node_ip_given: pairs.some((p) => p.name === 'node-ip'),
  };
}
