import type { InventoryHost } from '../types/inventory.js';

/** The machine running kubemix, when a play or delegate_to names `localhost` and the inventory does not. */
export const IMPLICIT_LOCALHOST: InventoryHost = {
  name: 'localhost',
  address: '127.0.0.1',
  os: 'linux',
  connection: 'local',
  role: 'controller',
  group: 'ungrouped',
  vars: { ansible_connection: 'local' },
};

/** Whether a name Ansible reads as the controller itself. */
export function namesLocalhost(name: string): boolean {
  return name === 'localhost' || name === '127.0.0.1';
}
