import type { ConnectionDetail } from '../types.js';
import type { ResolvedWinrmOptions } from './options.js';

/**
 * What -vvv shows of a WinRM connection: the endpoint, the account and its authentication (the
 * password named, never given), and how the server is checked — http relies on NTLM message
 * encryption alone, https on a pinned certificate fingerprint, a CA, or nothing (insecure).
 */
export function winrmConnectionDetail(options: ResolvedWinrmOptions): ConnectionDetail {
  const auth =
    options.auth === 'ntlm'
      ? 'ntlm with password (messages encrypted)'
      : `basic with password${options.scheme === 'http' ? ' (in clear text: allowBasicOverHttp)' : ''}`;
  return {
    transport: 'winrm',
    address: options.address,
    port: options.port,
    user: options.user,
    auth: [auth],
    hostCheck:
      options.scheme === 'http' ? 'http (no server certificate)' : `https, ${certificateCheck(options)}`,
  };
}

function certificateCheck(options: ResolvedWinrmOptions): string {
  const { tls } = options;
  // A pinned fingerprint is checked even with insecure set (channel.ts).
  if (tls.fingerprint) return `certificate pinned by SHA-256 fingerprint ${tls.fingerprint}`;
  if (tls.insecure) return 'certificate not checked (insecure)';
  if (tls.caFile) return `certificate checked against CA file ${tls.caFile}`;
  if (tls.ca) return 'certificate checked against the given CA';
  return 'certificate checked against the system CAs';
}
