import type { WorkerGroup } from '../spec/schema.js';
import type { ConnectionKind } from '../types/inventory.js';

const WINRM_HTTP_PORT = 5985;
const SSH_PORT = 22;

/** The port a connection kind listens on unless a host says otherwise. */
export function defaultPort(connection: ConnectionKind): number | undefined {
  if (connection === 'winrm') return WINRM_HTTP_PORT;
  if (connection === 'ssh') return SSH_PORT;
  return undefined;
}

/** A worker group's connection (ssh for Linux, WinRM for Windows unless it says otherwise). */
export function groupConnection(group: Pick<WorkerGroup, 'connection' | 'os'>): ConnectionKind {
  return group.connection ?? (group.os === 'windows' ? 'winrm' : 'ssh');
}
