import type { InventoryHost } from './inventory.js';

/**
 * The machine running kubemix, as an inventory host: provider work, preflight checks and every
 * task that names `localhost` (Ansible's implicit localhost) run here, over the local transport.
 * The one definition of "this machine"; its `name` is the reserved host name `localhost`.
 */
export const LOCALHOST: InventoryHost = Object.freeze({
  name: 'localhost',
  address: '127.0.0.1',
  os: 'linux',
  connection: 'local',
  role: 'controller',
  group: 'localhost',
}) as InventoryHost;

/** One spelling per address: DNS names are case-insensitive, IPv6 may be written in brackets. */
export const normalAddress = (address: string): string =>
  address
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');

/**
 * Whether a host name or address names the machine running kubemix: `localhost` or
 * `127.0.0.1` as written (how Ansible reads a play's hosts and `delegate_to`). With
 * `anySpelling`, the address is compared in its normal spelling ({@link normalAddress}) and the
 * IPv6 loopback `::1` counts too: the hypervisor address rule compares addresses that way.
 */
export function namesThisMachine(nameOrAddress: string, options: { anySpelling?: boolean } = {}): boolean {
  const spelled = options.anySpelling ? normalAddress(nameOrAddress) : nameOrAddress;
  return (
    spelled === LOCALHOST.name ||
    spelled === LOCALHOST.address ||
    (options.anySpelling === true && spelled === '::1')
  );
}
