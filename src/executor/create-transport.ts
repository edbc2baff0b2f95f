import { ConnectionError } from '../errors/index.js';
import { LocalTransport } from '../transport/local/index.js';
import type { Transport } from '../transport/types.js';
import type { InventoryHost } from '../types/inventory.js';

/** Picks the transport for a host's connection kind. The only module that knows every wire. */
export function createTransport(host: InventoryHost): Transport {
  switch (host.connection) {
    case 'local':
      return new LocalTransport(host.name);
    case 'ssh':
    case 'winrm':
      throw new ConnectionError(host.name, `${host.connection} transport is not wired in yet`);
  }
}
