import type { WindowsVersion } from './windows.js';

/** Operating systems kubemix manages. */
export type HostOs = 'linux' | 'windows';

/** How kubemix reaches a host. */
export type ConnectionKind = 'local' | 'ssh' | 'winrm';

/** Role of a host in the cluster. `hypervisor` and `controller` hosts are not Kubernetes nodes. */
export type HostRole = 'control-plane' | 'worker' | 'hypervisor' | 'controller';

/**
 * A secret given by reference, never inline: an environment variable or a file.
 * Resolved at connect time so the value never enters a plan, a log or the state file.
 */
export type SecretRef = { env: string } | { file: string };

/** The parts of {@link HostCredentials} that must resolve on the machine running kubemix. */
export type CredentialPart = 'privateKey' | 'passphrase' | 'password' | 'agent';

/** Where each credential part was written, by part: a spec path or an inventory variable. */
export type CredentialFields = Partial<Record<CredentialPart, string>>;

/** Credentials used to log in to a host. Secret parts are references. */
export interface HostCredentials {
  /** Login user (ssh) or account (winrm). */
  user?: string;
  /** SSH private key file. */
  privateKey?: SecretRef;
  /** Passphrase of the private key. */
  passphrase?: SecretRef;
  /** Password (WinRM, or sudo with a password). */
  password?: SecretRef;
  /** Use the running ssh-agent ($SSH_AUTH_SOCK). */
  agent?: boolean;
}

/**
 * A host SSH connections go through first (OpenSSH's ProxyJump), with its own login and its own
 * host key, always checked strictly: e.g. the hypervisor whose network holds guests kubemix made.
 */
export interface JumpHost {
  /** Inventory name (messages). */
  name: string;
  address: string;
  port?: number;
  credentials?: HostCredentials;
  /** known_hosts files with its key (default: the ssh config's, else ~/.ssh/known_hosts). */
  knownHostsFiles?: string[];
}

/** One machine kubemix knows about: what a provider returns and what the state file records. */
export interface InventoryHost {
  /** Inventory name, unique in the cluster (also the Kubernetes node name). */
  name: string;
  /** Address kubemix connects to (IP or DNS name). */
  address: string;
  /**
   * Address the cluster uses for this node: the kubelet's node IP, the API server's and etcd's
   * advertise address, the control plane endpoint of the first controller. Absent: `address`
   * (static and libvirt hosts are reached where the cluster reaches them). EC2 sets the private
   * address here, whatever `connectVia` picks for `address`: a public IPv4 address is NAT-mapped
   * and exists on no interface of the instance.
   */
  nodeAddress?: string;
  port?: number;
  os: HostOs;
  connection: ConnectionKind;
  role: HostRole;
  /** Node group the host belongs to (`control-plane`, a worker group name, or `hypervisors`). */
  group: string;
  /** Windows Server version, for Windows hosts. */
  windowsVersion?: WindowsVersion;
  credentials?: HostCredentials;
  /**
   * Where the user wrote each credential the host logs in with (`provider.hosts.2.credentials.password`,
   * an inventory's `ansible_password_env`), so a reference that does not resolve is reported at
   * the field to fix. Absent for credentials kubemix makes itself (the cluster key).
   */
  credentialFields?: CredentialFields;
  /** Host-key policy for SSH: strict for user-listed hosts, accept-new for hosts kubemix created. */
  hostKeyPolicy?: 'strict' | 'accept-new';
  /** Extra per-host variables visible to playbooks. */
  vars?: Record<string, unknown>;
  /** Reached over SSH through this host (guests on a remote hypervisor's network). */
  jump?: JumpHost;
  /** The provider that creates this machine (absent for machines the user lists): it may still be booting when a task starts. */
  createdBy?: 'libvirt' | 'ec2';
}

/** The address the cluster uses for a host: its node address, else the address kubemix connects to. */
export function nodeAddressOf(host: Pick<InventoryHost, 'address' | 'nodeAddress'>): string {
  return host.nodeAddress ?? host.address;
}

/** Where a credentials object was written, as the field of each part it has (spec paths). */
export function credentialFieldsAt(
  credentials:
    | { privateKey?: unknown; passphrase?: unknown; password?: unknown; agent?: unknown }
    | undefined,
  base: string,
): CredentialFields | undefined {
  if (!credentials) return undefined;
  const parts = (['privateKey', 'passphrase', 'password', 'agent'] as const).filter(
    (part) => credentials[part] !== undefined,
  );
  return parts.length === 0 ? undefined : Object.fromEntries(parts.map((p) => [p, `${base}.${p}`]));
}
