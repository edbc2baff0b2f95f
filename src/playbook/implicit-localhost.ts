import type { InventoryHost } from '../types/inventory.js';
import { LOCALHOST, namesThisMachine } from '../types/localhost.js';

/** The machine running kubemix, when a play or delegate_to names `localhost` and the inventory does not. */
export const IMPLICIT_LOCALHOST: InventoryHost = {
  ...LOCALHOST,
  group: 'ungrouped',
  vars: { ansible_connection: 'local' },
};

/**
 * The host `delegate_to: <name>` names, for `kubemix run` and `up` alike: the inventory's (or the
 * plan's) host of that name, else this machine when the name is one of its names (`localhost`,
 * `127.0.0.1`: Ansible's implicit localhost), else undefined.
 */
export function delegateHostNamed(
  name: string,
  hostNamed: (name: string) => InventoryHost | undefined,
): InventoryHost | undefined {
  return hostNamed(name) ?? (namesThisMachine(name) ? IMPLICIT_LOCALHOST : undefined);
}
