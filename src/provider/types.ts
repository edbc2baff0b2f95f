import type { InventoryHost } from '../types/inventory.js';

/**
 * A source of machines. `create` brings the cluster's hosts into being (or finds them) and
 * returns the inventory; `list` reports what exists now; `destroy` removes what `create` made.
 * Providers never import transports or the engine: remote work goes through the injected runner.
 */
export interface Provider {
  readonly type: 'static' | 'libvirt' | 'ec2';
  create(options?: { signal?: AbortSignal }): Promise<InventoryHost[]>;
  list(options?: { signal?: AbortSignal }): Promise<InventoryHost[]>;
  destroy(options?: { signal?: AbortSignal }): Promise<void>;
}
