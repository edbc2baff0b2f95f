import type { Lab } from '../../../scripts/lab/lab.js';
import type { SshTransportOptions } from '../../../src/transport/ssh/index.js';
import { SshTransport } from '../../../src/transport/ssh/index.js';
import type { InventoryHost } from '../../../src/types/inventory.js';

/** The lab host with this inventory name. */
export function labHost(lab: Lab, name: string): InventoryHost {
  const host = lab.hosts.find((h) => h.name === name);
  if (!host) throw new Error(`no ${name} in the lab`);
  return host;
}

/** An SshTransport for a lab host: strict host keys from the lab's known_hosts, no user ssh config. */
export function labTransport(lab: Lab, name: string, extra: Partial<SshTransportOptions> = {}): SshTransport {
  const host = labHost(lab, name);
  const options: SshTransportOptions = {
    host: host.name,
    address: host.address,
    port: host.port ?? 22,
    knownHostsFiles: [lab.knownHostsPath],
    hostKeyPolicy: 'strict',
    sshConfigPath: false,
    agent: false,
    connectTimeoutMs: 5000,
    ...extra,
  };
  if (host.credentials && !extra.credentials) options.credentials = host.credentials;
  return new SshTransport(options);
}
