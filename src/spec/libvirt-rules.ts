import { namesThisMachine } from '../types/localhost.js';
import type { CrossFieldRule } from './rule-helpers.js';
import { DEFAULT_TUNNEL_PORT, DEFAULT_WINDOWS_VERSION, WINDOWS_VXLAN_PORT } from './schema.js';
import type { RuleIssue } from './spec-view.js';

// An unset address is the schema's default, this machine.
const isLocal = (address: string | undefined) => address === undefined || namesThisMachine(address);

/**
 * What a libvirt spec must say together: Windows workers need the Windows ISO (kubemix never
 * downloads one unasked) and no credentials of their own (kubemix generates the Administrator
 * password, or logs in with the cluster key over SSH); several hypervisors need addresses the
 * others reach (the tunnel runs between them) and a tunnel port other than flannel's; guests of a
 * remote gateway hypervisor are reached through it over SSH, which WinRM cannot do; the golden
 * image is made from one Windows version.
 */
export const libvirtRules: CrossFieldRule = (spec) => {
  if (spec.provider.type !== 'libvirt') return [];
  const issues: RuleIssue[] = [];
  const windowsGroups = spec.workers.filter((g) => g.os === 'windows' && (g.count ?? 0) > 0);
  const hypervisors = spec.provider.hypervisors;
  if (windowsGroups.length > 0 && !spec.provider.windowsImage)
    issues.push({
      path: ['provider', 'images', 'windows'],
      message:
        'is required for Windows workers: the Windows Server evaluation ISO (--windows-iso PATH|URL with --windows-iso-sha256); kubemix never downloads one unasked',
    });
  // Linux guests are reached as root with the cluster key: credentials given for them would be ignored.
  const ignored =
    'Linux guests on libvirt are reached as root with the cluster SSH key kubemix makes (in the cluster directory): remove credentials';
  if (spec.controlPlane.credentials)
    issues.push({ path: ['nodes', 'controlPlane', 'credentials'], message: ignored });
  for (const group of spec.workers.filter((g) => g.os === 'linux' && g.credentials))
    issues.push({ path: ['nodes', 'workers', group.index, 'credentials'], message: ignored });
  for (const group of windowsGroups) {
    if (group.credentials)
      issues.push({
        path: ['nodes', 'workers', group.index, 'credentials'],
        message:
          'Windows guests on libvirt get an Administrator password kubemix generates (kept in secrets.json) or, with connection ssh, the cluster key: remove credentials',
      });
    const gateway = hypervisors[0];
    if (gateway && !isLocal(gateway.address) && (group.connection ?? 'winrm') === 'winrm')
      issues.push({
        path: ['nodes', 'workers', group.index, 'connection'],
        message: `guests of the remote hypervisor ${gateway.name ?? gateway.address} are reached through it over SSH, which WinRM cannot use: give this Windows group connection: ssh`,
      });
  }
  if (hypervisors.length > 1)
    for (const hv of hypervisors.filter((h) => isLocal(h.address)))
      issues.push({
        path: ['provider', 'hypervisors', hv.index, 'address'],
        message:
          'with several hypervisors, give each an address the others reach (not localhost): the VXLAN tunnel between their networks runs between these addresses',
      });
  const tunnelPort = spec.provider.tunnelPort ?? DEFAULT_TUNNEL_PORT;
  const flannelPort = spec.network.port ?? WINDOWS_VXLAN_PORT;
  // 4789 itself is refused by the schema, whatever flannel's port.
  if (hypervisors.length > 1 && tunnelPort === flannelPort && tunnelPort !== WINDOWS_VXLAN_PORT)
    issues.push({
      path: ['provider', 'tunnel', 'port'],
      message: `must differ from the guests' flannel port ${flannelPort} (network.flannel.port)`,
    });
  const versions = new Set(windowsGroups.map((g) => String(g.windowsVersion ?? DEFAULT_WINDOWS_VERSION)));
  if (spec.provider.goldenImage === true && versions.size > 1)
    issues.push({
      path: ['provider', 'windows', 'goldenImage'],
      message: `makes one golden image per hypervisor from one Windows version: give every Windows group the same windowsVersion (found ${[...versions].sort().join(', ')})`,
    });
  return issues;
};
