import { cloudInitYaml } from '../cloud-init-yaml.js';

/** What a Linux guest's NoCloud seed says. */
export interface CloudInitInput {
  hostname: string;
  /** The DNS domain of the cluster network (dnsmasq answers `<node>.<domain>`). */
  domain: string;
  /** instance-id: cloud-init runs its per-instance modules once per id. */
  instanceId: string;
  mac: string;
  /** The cluster's SSH public key (OpenSSH format). */
  publicKey: string;
}

/**
 * The files of a cloud-init NoCloud seed (volume label `cidata`): cloud-init docs, "NoCloud"
 * (user-data, meta-data, network-config v2). kubemix logs in as root with the cluster key, as
 * on the static hosts its playbooks are written for: `disable_root: false` keeps root's key
 * usable (cc_ssh writes the keys for root without the "login as" prefix) and `users: []` makes
 * no default user. Only ed25519/ecdsa host keys: RSA generation takes seconds under emulation.
 */
export function nocloudSeed(input: CloudInitInput): Record<string, string> {
  const userData = {
    hostname: input.hostname,
    fqdn: `${input.hostname}.${input.domain}`,
    prefer_fqdn_over_hostname: false,
    manage_etc_hosts: true,
    users: [],
    disable_root: false,
    ssh_pwauth: false,
    ssh_authorized_keys: [input.publicKey.trim()],
    ssh_genkeytypes: ['ed25519', 'ecdsa'],
    package_update: false,
    package_upgrade: false,
  };
  const metaData = { 'instance-id': input.instanceId, 'local-hostname': input.hostname };
  const networkConfig = {
    version: 2,
    ethernets: { primary: { match: { macaddress: input.mac }, dhcp4: true } },
  };
  return {
    'user-data': `#cloud-config\n${cloudInitYaml(userData)}`,
    'meta-data': cloudInitYaml(metaData),
    'network-config': cloudInitYaml(networkConfig),
  };
}
