import { namesThisMachine, normalAddress } from '../types/localhost.js';
import type { CrossFieldRule } from './rule-helpers.js';
import type { HostView, RuleIssue, SpecView } from './spec-view.js';

const SSH_PORT = 22;

/** The connection a static host is reached by, as the static provider decides it (as written). */
function staticConnection(spec: SpecView, host: HostView): string {
  if (host.connection !== undefined) return host.connection;
  if (host.group === 'control-plane') return spec.controlPlane.connection ?? 'ssh';
  const group = spec.workers.find((g) => g.name === host.group);
  return group?.connection ?? (group?.os === 'windows' ? 'winrm' : 'ssh');
}

const label = (host: HostView) => host.name ?? `provider.hosts.${host.index}`;

/**
 * Two static hosts are never one machine: on static hosts the address kubemix connects to is
 * also the node's address in the cluster (the kubelet's node IP, the API server's advertise
 * address), so two nodes at one address would clash even on different SSH ports (a NAT port
 * forward); and two `local` hosts are both the machine running kubemix.
 */
export const staticAddressRule: CrossFieldRule = (spec) => {
  if (spec.provider.type !== 'static') return [];
  const issues: RuleIssue[] = [];
  const byAddress = new Map<string, HostView>();
  let local: HostView | undefined;
  for (const host of spec.provider.hosts) {
    const connection = staticConnection(spec, host);
    if (connection === 'local') {
      // A Windows host reached locally is refused as such (staticHostGroupsRule).
      const windows = spec.workers.some((g) => g.name === host.group && g.os === 'windows');
      if (local && !windows)
        issues.push({
          path: ['provider', 'hosts', host.index, 'connection'],
          message: `hosts ${label(local)} and ${label(host)} both use connection local: both would be the machine running kubemix`,
        });
      if (!windows) local ??= host;
      continue;
    }
    if (host.address === undefined) continue;
    const key = normalAddress(host.address);
    const first = byAddress.get(key);
    if (!first) {
      byAddress.set(key, host);
      continue;
    }
    const sshPort = (h: HostView) => (staticConnection(spec, h) === 'ssh' ? (h.port ?? SSH_PORT) : undefined);
    const samePort = sshPort(first) !== undefined && sshPort(first) === sshPort(host);
    const detail = samePort
      ? ` and SSH port ${sshPort(host)}: one machine listed twice`
      : ": the cluster uses a static host's address as its node address (kubelet node IP, advertise address), so two nodes cannot share one";
    issues.push({
      path: ['provider', 'hosts', host.index, 'address'],
      message: `hosts ${label(first)} and ${label(host)} have the same address ${host.address}${detail}`,
    });
  }
  return issues;
};

/**
 * With several hypervisors, each needs its own address: the VXLAN tunnel joining their guest
 * networks runs between these addresses, so two at one address (or two local ones) cannot be joined.
 */
export const hypervisorAddressRule: CrossFieldRule = (spec) => {
  if (spec.provider.type !== 'libvirt' || spec.provider.hypervisors.length < 2) return [];
  const issues: RuleIssue[] = [];
  const byAddress = new Map<string, HostView>();
  for (const hv of spec.provider.hypervisors) {
    // Local ones are refused with several hypervisors by libvirtRules.
    if (hv.address === undefined || namesThisMachine(hv.address, { anySpelling: true })) continue;
    const key = normalAddress(hv.address);
    const first = byAddress.get(key);
    if (!first) {
      byAddress.set(key, hv);
      continue;
    }
    issues.push({
      path: ['provider', 'hypervisors', hv.index, 'address'],
      message: `hypervisors ${first.name ?? first.index} and ${hv.name ?? hv.index} have the same address ${hv.address}: the VXLAN tunnel between the hypervisors runs between their addresses, so each needs its own`,
    });
  }
  return issues;
};

export const addressRules: readonly CrossFieldRule[] = [staticAddressRule, hypervisorAddressRule];
