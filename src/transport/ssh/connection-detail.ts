import type { ConnectionDetail } from '../types.js';
import type { ResolvedTarget } from './resolve-options.js';

/**
 * What -vvv shows of an SSH connection (OpenSSH's `ssh -v` names the same things: the
 * destination, each identity file offered, the agent, password methods, the known_hosts files):
 * keys by where they came from and the password by name, never their contents.
 */
export function sshConnectionDetail(target: ResolvedTarget): ConnectionDetail {
  const { params } = target;
  const auth = [
    ...params.keys.map((k) => `private key (${k.source})`),
    ...(params.agentSocket ? [`ssh-agent (${params.agentSocket})`] : []),
    ...(params.password ? ['password'] : []),
  ];
  const files = target.knownHostsFiles.join(', ') || 'none';
  const { policy, recordFile } = params.hostKeys;
  const hostCheck =
    policy === 'accept-new'
      ? `host key accept-new (known_hosts ${files}${recordFile ? `; a new key is recorded in ${recordFile}` : ''})`
      : `host key strict (known_hosts ${files})`;
  const detail: ConnectionDetail = {
    transport: 'ssh',
    address: params.address,
    port: params.port,
    user: params.user,
    auth: auth.length > 0 ? auth : ['none offered'],
    hostCheck,
  };
  if (target.jumps.length > 0) detail.via = target.jumps.map((j) => `${j.user}@${j.address}:${j.port}`);
  return detail;
}
