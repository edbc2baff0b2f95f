import { readFileSync } from 'node:fs';
import { SecretRefError } from '../errors/index.js';
import { secretReference } from '../executor/secret-reference.js';
import type { ConnectionSecrets } from '../executor/transport-pool.js';
import { TemplateRenderError } from '../template/index.js';
import type { InventoryHost, SecretRef } from '../types/inventory.js';
import { mergeVars } from './vars.js';

/**
 * Ansible's connection variables that carry a secret, by what each is for, as its plugins read
 * them (ansible-core, lib/ansible/plugins/): connection/ssh.py `password`, connection/winrm.py and
 * psrp.py `remote_password`, become/sudo.py `become_pass`. When several are set, the last listed
 * wins (lib/ansible/config/manager.py, ConfigManager._loop_entries).
 * `ansible_ssh_private_key_passphrase` is kubemix's own (Ansible's ssh plugin has no passphrase).
 */
export const SECRET_VARIABLES = {
  sshPassword: ['ansible_password', 'ansible_ssh_pass', 'ansible_ssh_password'],
  winrmPassword: ['ansible_password', 'ansible_winrm_pass', 'ansible_winrm_password'],
  becomePassword: ['ansible_become_password', 'ansible_become_pass', 'ansible_sudo_pass'],
  passphrase: ['ansible_ssh_private_key_passphrase'],
} as const;

/** Every variable name that holds a connection secret. */
export const SECRET_VARIABLE_NAMES: ReadonlySet<string> = new Set(Object.values(SECRET_VARIABLES).flat());

/** The kubemix reference variable (`<name>_env` / `<name>_file`) that replaces an inline secret. */
export function referenceVariableFor(name: string): string {
  if ((SECRET_VARIABLES.becomePassword as readonly string[]).includes(name)) return 'ansible_become_password';
  if ((SECRET_VARIABLES.passphrase as readonly string[]).includes(name))
    return 'ansible_ssh_private_key_passphrase';
  return 'ansible_password';
}

/** What {@link resolveConnectionSecrets} found. */
export interface ResolvedConnectionSecrets {
  /** Per host name: the values for its transport. */
  byHost: Map<string, ConnectionSecrets>;
  /** Every secret value the run must hide, references' values included. */
  values: string[];
}

function readReference(ref: SecretRef): string | undefined {
  try {
    const value = 'env' in ref ? process.env[ref.env] : readFileSync(ref.file, 'utf8');
    return value?.replace(/\r?\n$/, '');
  } catch {
    // Reported by the transport at connect time, as before: here it is only not hidden.
    return undefined;
  }
}

/**
 * The connection secrets of each host, as Ansible evaluates inventory variables: lazily, with
 * templating, so a value may be written inline, looked up (`{{ lookup('env', 'WIN_PW') }}`,
 * `{{ lookup('file', 'pw.txt') }}`) or taken from another variable. A `_env`/`_file` reference
 * (ansible_password_env...) is left to the transport but its value is read here, for hiding only.
 * A template that cannot be rendered (an unset variable in an env lookup, a missing file) is a
 * SecretRefError naming the host, the variable and the cause; the value never appears in it.
 */
export function resolveConnectionSecrets(
  hosts: InventoryHost[],
  options: { playbookDir?: string } = {},
): ResolvedConnectionSecrets {
  const byHost = new Map<string, ConnectionSecrets>();
  const values: string[] = [];
  for (const host of hosts) {
    // A local connection logs in to nothing.
    if (host.connection === 'local') continue;
    const vars = host.vars ?? {};
    const scope = mergeVars([
      { values: { inventory_hostname: host.name, playbook_dir: options.playbookDir ?? '' } },
      { values: vars, templated: true },
    ]);
    const lastSet = (names: readonly string[]): string | undefined => {
      const name = names.filter((n) => vars[n] !== undefined && vars[n] !== null).at(-1);
      if (name === undefined) return undefined;
      try {
        const value = scope[name];
        return typeof value === 'string' ? value : JSON.stringify(value);
      } catch (error) {
        if (error instanceof TemplateRenderError)
          throw new SecretRefError(`${host.name}: ${name}: ${error.message}`);
        throw error;
      }
    };
    const secrets: ConnectionSecrets = {};
    const password = lastSet(
      host.connection === 'winrm' ? SECRET_VARIABLES.winrmPassword : SECRET_VARIABLES.sshPassword,
    );
    const becomePassword = lastSet(SECRET_VARIABLES.becomePassword);
    const passphrase = lastSet(SECRET_VARIABLES.passphrase);
    if (password !== undefined) secrets.password = password;
    if (becomePassword !== undefined) secrets.becomePassword = becomePassword;
    if (passphrase !== undefined) secrets.passphrase = passphrase;
    if (Object.keys(secrets).length > 0) byHost.set(host.name, secrets);
    values.push(...Object.values(secrets));
    const references = [
      host.credentials?.password,
      host.credentials?.passphrase,
      secretReference(vars, 'ansible_become_password'),
    ];
    for (const ref of references) {
      const value = ref ? readReference(ref) : undefined;
      if (value) values.push(value);
    }
  }
  return { byHost, values: [...new Set(values.filter((v) => v !== ''))] };
}
