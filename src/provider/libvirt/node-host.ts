import type { InventoryHost, JumpHost } from '../../types/inventory.js';
import { clusterKeyPath } from '../cluster-key.js';
import { defaultPort } from '../node-defaults.js';
import type { NodeRequest } from '../types.js';
import type { GuestDefinition } from './guest.js';
import { WINDOWS_ADMIN_USER } from './windows/guest.js';
import type { WindowsSetupKind } from './windows/install-progress.js';

/**
 * The secret output create-hosts registers on each hypervisor: the Administrator passwords it
 * generated for the Windows guests placed there, by node name. Kept in secrets.json only; the
 * WinRM transport reads a node's password from it (`kubemix_password_secret`, the same
 * mechanism as any provider that generates passwords).
 */
export const WINDOWS_PASSWORDS_OUTPUT = 'libvirt_windows_passwords';

/**
 * Where a guest's config ISO and system disk sit in its domain, and for a Windows guest what
 * Windows Setup runs in it (for the Windows waits): `specialize` when its system disk is an
 * overlay on the golden image, else `install` from the ISO.
 */
export function guestDeviceVars(guest: GuestDefinition): {
  libvirt_system_disk?: string;
  libvirt_config_volume?: string;
  libvirt_config_target?: string;
  libvirt_windows_setup?: WindowsSetupKind;
} {
  const config = guest.disks.find((d) => d.source.kind === 'windows-config');
  const system = guest.disks.find((d) => d.device === 'disk');
  return {
    ...(system ? { libvirt_system_disk: system.target } : {}),
    ...(config ? { libvirt_config_volume: config.volume, libvirt_config_target: config.target } : {}),
    ...(guest.os === 'windows'
      ? { libvirt_windows_setup: system?.source.kind === 'golden-overlay' ? 'specialize' : 'install' }
      : {}),
  };
}

/**
 * A guest as an inventory host: the address of its DHCP reservation, its host key trusted on
 * first use (guests make theirs at first boot) and kept in the cluster's known_hosts, root with
 * the cluster key (Linux), Administrator with the cluster key (Windows over SSH) or with the
 * generated password from secrets.json (Windows over WinRM), and the gateway hypervisor as its
 * jump host when that hypervisor is remote.
 */
export function nodeHost(options: {
  request: NodeRequest;
  guest: GuestDefinition;
  clusterDir: string;
  jump: JumpHost | undefined;
  /** libvirt URI of its hypervisor (for the steps it delegates there). */
  uri: string;
}): InventoryHost {
  const { request, guest } = options;
  const host: InventoryHost = {
    name: request.name,
    address: guest.ip,
    os: request.os,
    connection: request.connection,
    role: request.role,
    group: request.group,
    hostKeyPolicy: 'accept-new',
    createdBy: 'libvirt',
    vars: {
      ...request.vars,
      hypervisor: guest.hypervisor,
      libvirt_uri: options.uri,
      libvirt_domain: guest.domain,
      mac: guest.mac,
      kubemix_address: 'reserved',
      ...guestDeviceVars(guest),
    },
  };
  const port = defaultPort(request.connection);
  if (port !== undefined) {
    host.port = port;
    // What the Windows install wait asks from the hypervisor: the port the guest will answer on.
    host.vars = { ...host.vars, libvirt_wait_port: port };
  }
  const key = { file: clusterKeyPath(options.clusterDir) };
  if (request.os === 'linux') host.credentials = { user: 'root', privateKey: key };
  else if (request.connection === 'ssh') host.credentials = { user: WINDOWS_ADMIN_USER, privateKey: key };
  else {
    host.credentials = { user: WINDOWS_ADMIN_USER };
    host.vars = { ...host.vars, kubemix_password_secret: `${WINDOWS_PASSWORDS_OUTPUT}.${request.name}` };
  }
  if (request.windowsVersion) host.windowsVersion = request.windowsVersion;
  if (options.jump && request.connection === 'ssh') host.jump = options.jump;
  return host;
}
