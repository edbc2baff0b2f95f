import type { SshTransportOptions } from '../transport/ssh/index.js';
import type { InventoryHost } from '../types/inventory.js';
import { secretReference } from './secret-reference.js';
import type { ConnectionSecrets } from './transport-pool.js';

const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/** `-o Key=Value` / `-J host` settings from Ansible's ansible_ssh_common_args / ansible_ssh_extra_args. */
function sshArgs(vars: Record<string, unknown>): Map<string, string> {
  const text = [str(vars['ansible_ssh_common_args']), str(vars['ansible_ssh_extra_args'])]
    .filter(Boolean)
    .join(' ');
  const words = text.match(/'[^']*'|"[^"]*"|\S+/g)?.map((w) => w.replace(/^['"]|['"]$/g, '')) ?? [];
  const settings = new Map<string, string>();
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === '-J' && words[i + 1]) settings.set('proxyjump', words[++i]!);
    const option = word === '-o' ? words[++i] : word.startsWith('-o') ? word.slice(2) : undefined;
    const match = option ? /^([^=\s]+)[=\s](.*)$/.exec(option) : null;
    if (match) settings.set(match[1]!.toLowerCase(), match[2]!);
  }
  return settings;
}

/** Where kubemix keeps keys of hosts it created itself (accept-new), when the caller knows. */
export interface SshDefaults {
  /** The cluster's own known_hosts file. */
  clusterKnownHosts?: string;
}

/**
 * SSH transport options for an inventory host: address, port, user and credentials from the
 * host; host-key files, policy and jump host from what Ansible users write
 * (ansible_ssh_common_args `-o UserKnownHostsFile=... -o StrictHostKeyChecking=... -o ProxyJump=...`
 * or `-J`), or kubemix_known_hosts / kubemix_ssh_jump. Passwords: the login password and sudo's
 * from `secrets` (what the inventory wrote inline or looked up) or from the `_env`/`_file`
 * references (ansible_password_env, ansible_become_password_file...).
 */
export function sshOptionsFor(
  host: InventoryHost,
  defaults: SshDefaults = {},
  secrets: ConnectionSecrets = {},
): SshTransportOptions {
  const vars = host.vars ?? {};
  const args = sshArgs(vars);
  const options: SshTransportOptions = { host: host.name, address: host.address };
  if (host.port !== undefined) options.port = host.port;
  const user = host.credentials?.user ?? str(vars['ansible_user']);
  if (user) options.user = user;
  if (host.credentials) options.credentials = host.credentials;
  const password = secretReference(vars, 'ansible_password') ?? secrets.password;
  if (password !== undefined) options.password = password;
  const become = secretReference(vars, 'ansible_become_password') ?? secrets.becomePassword;
  if (become !== undefined) options.becomePassword = become;
  if (secrets.passphrase !== undefined && !host.credentials?.passphrase)
    options.passphrase = secrets.passphrase;
  // A list is taken as it is (a spec's one path may hold spaces); a string is OpenSSH's
  // space-separated UserKnownHostsFile list.
  const listed = vars['kubemix_known_hosts'];
  const knownHosts = Array.isArray(listed)
    ? listed.map(String)
    : (str(listed) ?? args.get('userknownhostsfile'))?.split(/\s+/);
  if (knownHosts && knownHosts.length > 0) options.knownHostsFiles = knownHosts;
  const strict = args.get('stricthostkeychecking');
  options.hostKeyPolicy = host.hostKeyPolicy ?? (strict === 'accept-new' ? 'accept-new' : 'strict');
  if (options.hostKeyPolicy === 'accept-new' && defaults.clusterKnownHosts)
    options.acceptNewFile = defaults.clusterKnownHosts;
  const jump = str(vars['kubemix_ssh_jump']) ?? args.get('proxyjump');
  if (jump && jump !== 'none') options.jump = jump;
  if (host.jump) {
    const { name, ...hop } = host.jump;
    options.jumpHosts = [{ host: name, ...hop }];
  }
  if (host.os === 'windows') options.remoteShell = 'powershell';
  return options;
}
