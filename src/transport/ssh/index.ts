export {
  entryMatchesHost,
  formatKnownHostsLine,
  type HostKeyCheck,
  type KnownHostEntry,
  keyFingerprint,
  keyTypeOf,
  knownHostsName,
  parseKnownHosts,
  verifyHostKey,
} from './known-hosts.js';
export type { SshTransportOptions } from './resolve-options.js';
export { localCredentialLookup, resolveSecretRef, type SecretInput, secretRefProblem } from './secrets.js';
export {
  defaultSshConfigPath,
  type JumpSpec,
  parseProxyJump,
  type ResolvedSshConfig,
  resolveSshConfig,
  resolveSshConfigText,
} from './ssh-config.js';
export { type SshExecRequest, SshTransport } from './ssh-transport.js';
