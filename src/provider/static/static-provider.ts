import type { InventoryHost } from '../../types/inventory.js';
import type { Provider } from '../types.js';

/**
 * Existing machines the user lists. `create` and `list` return them as they are; `destroy`
 * leaves them alone: the cleanup task has already reset them, and they are not kubemix's to remove.
 */
export class StaticProvider implements Provider {
  readonly type = 'static' as const;
  private readonly hosts: readonly InventoryHost[];

  constructor(hosts: readonly InventoryHost[]) {
    this.hosts = hosts.map((h) => ({ ...h }));
  }

  async create(): Promise<InventoryHost[]> {
    return this.list();
  }

  async list(): Promise<InventoryHost[]> {
    return this.hosts.map((h) => ({ ...h }));
  }

  async destroy(): Promise<void> {}
}
