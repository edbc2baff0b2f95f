import type { InventoryHost } from '../types/inventory.js';

/** The machine running kubemix: provider work and preflight checks of static and EC2 clusters run here. */
export const LOCALHOST: InventoryHost = Object.freeze({
  name: 'localhost',
  address: '127.0.0.1',
  os: 'linux',
  connection: 'local',
  role: 'controller',
  group: 'localhost',
}) as InventoryHost;
