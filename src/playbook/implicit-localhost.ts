import type { InventoryHost } from '../types/inventory.js';
import { LOCALHOST } from '../types/localhost.js';

/** The machine running kubemix, when a play or delegate_to names `localhost` and the inventory does not. */
export const IMPLICIT_LOCALHOST: InventoryHost = {
  ...LOCALHOST,
  group: 'ungrouped',
  vars: { ansible_connection: 'local' },
};
