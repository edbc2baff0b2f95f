import { LocalTransport } from '../transport/local/index.js';
import { SshTransport } from '../transport/ssh/index.js';
import type { Transport } from '../transport/types.js';
import type { InventoryHost } from '../types/inventory.js';
import { LazyTransport } from './lazy-transport.js';
import { type SshDefaults, sshOptionsFor } from './ssh-options.js';
import type { ConnectionSecrets, TransportFactory } from './transport-pool.js';
import type { SecretReader } from './winrm-options.js';

/**
 * Settings that come from the run rather than the host: the cluster's own known_hosts, and where
 * passwords a provider generated are read (secrets.json).
 */
export type TransportDefaults = SshDefaults & { readSecret?: SecretReader };

/** A factory that picks the transport for a host's connection kind. The only module that knows every wire. */
export function createTransportFactory(defaults: TransportDefaults = {}): TransportFactory {
  return (host: InventoryHost, secrets?: ConnectionSecrets): Transport => {
    switch (host.connection) {
      case 'local':
        return new LocalTransport(host.name);
      case 'ssh':
        return new SshTransport(sshOptionsFor(host, defaults, secrets));
      case 'winrm':
        return new LazyTransport(host.name, 'winrm', async () =>
          (await import('./winrm-options.js')).winrmTransportFor(host, secrets, defaults.readSecret),
        );
    }
  };
}

/** The factory with no run-specific settings (user-listed hosts, `kubemix run`). */
export const createTransport: TransportFactory = createTransportFactory();
