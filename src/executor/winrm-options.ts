import { SecretRefError } from '../errors/index.js';
import { WinrmTransport, type WinrmTransportOptions } from '../transport/winrm/index.js';
import type { InventoryHost } from '../types/inventory.js';
import type { ConnectionSecrets } from './transport-pool.js';

const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * WinRM transport options for an inventory host, from the variables Ansible users know
 * (ansible_winrm_scheme, ansible_winrm_transport, ansible_winrm_server_cert_validation,
 * ansible_port) plus kubemix_winrm_ca_file / kubemix_winrm_cert_fingerprint for pinning.
 * Defaults follow Windows: HTTP 5985 with NTLM message encryption; HTTPS means port 5986.
 */
export function winrmOptionsFor(host: InventoryHost, secrets: ConnectionSecrets = {}): WinrmTransportOptions {
  const vars = host.vars ?? {};
  const password = host.credentials?.password ?? secrets.password;
  if (password === undefined) {
    throw new SecretRefError(
      `${host.name}: a WinRM host needs credentials.password as { env: VAR } or { file: PATH } (in inventories ansible_password_env, ansible_password_file or ansible_password)`,
    );
  }
  const scheme =
    str(vars['ansible_winrm_scheme']) === 'https' ? 'https' : host.port === 5986 ? 'https' : 'http';
  const auth = str(vars['ansible_winrm_transport']) === 'basic' ? 'basic' : 'ntlm';
  const options: WinrmTransportOptions = {
    host: host.name,
    address: host.address,
    port: host.port ?? (scheme === 'https' ? 5986 : 5985),
    scheme,
    auth,
    user: host.credentials?.user ?? str(vars['ansible_user']) ?? 'Administrator',
    password,
  };
  const tls: NonNullable<WinrmTransportOptions['tls']> = {};
  const caFile = str(vars['kubemix_winrm_ca_file']) ?? str(vars['ansible_winrm_ca_trust_path']);
  if (caFile) tls.caFile = caFile;
  const fingerprint = str(vars['kubemix_winrm_cert_fingerprint']);
  if (fingerprint) tls.fingerprint = fingerprint;
  if (str(vars['ansible_winrm_server_cert_validation']) === 'ignore') tls.insecure = true;
  if (Object.keys(tls).length > 0) options.tls = tls;
  if (vars['kubemix_winrm_allow_basic_over_http'] === true) options.allowBasicOverHttp = true;
  return options;
}

/**
 * Host variable naming a secret output (`<output>.<key>` in the cluster's secrets.json) that holds
 * the host's password: what a provider that generated the password sets instead of a reference
 * (libvirt's Windows guests; EC2's GetPasswordData), so the password lives in secrets.json only.
 */
export const PASSWORD_SECRET_VAR = 'kubemix_password_secret';

/** Reads a secret output by `<output>.<key>` (the CLI reads the cluster's secrets.json). */
export type SecretReader = (path: string) => Promise<string | undefined>;

/** A WinRM transport for a host (its options checked when made, its password read at connect). */
export async function winrmTransportFor(
  host: InventoryHost,
  secrets: ConnectionSecrets = {},
  readSecret?: SecretReader,
): Promise<WinrmTransport> {
  const path = str(host.vars?.[PASSWORD_SECRET_VAR]);
  if (!path || host.credentials?.password || secrets.password !== undefined)
    return new WinrmTransport(winrmOptionsFor(host, secrets));
  const password = await readSecret?.(path);
  if (password === undefined)
    throw new SecretRefError(
      `${host.name}: its password (secret output ${path}) is not in the cluster's secrets.json`,
    );
  return new WinrmTransport(winrmOptionsFor(host, { ...secrets, password }));
}
