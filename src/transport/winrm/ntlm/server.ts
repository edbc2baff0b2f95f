import { randomBytes, timingSafeEqual } from 'node:crypto';
import { AV_FLAG_MIC_PRESENT, AvId, NegotiateFlag } from './constants.js';
import { fileTimeNow, hmacMd5, ntowfv2, sessionBaseKey } from './crypto.js';
import { encodeChallenge, parseAuthenticate, parseAvPairs, parseNegotiate } from './messages.js';
import { rc4 } from './rc4.js';
import { NtlmSessionSecurity } from './session-security.js';

/** Authentication failed: unknown user, wrong password, bad MIC, or not NTLMv2. */
export class NtlmAuthError extends Error {}

/** Flags a server built on this code can grant. */
const SERVER_SUPPORTED =
  (NegotiateFlag.UNICODE |
    NegotiateFlag.OEM |
    NegotiateFlag.SIGN |
    NegotiateFlag.SEAL |
    NegotiateFlag.NTLM |
    NegotiateFlag.ALWAYS_SIGN |
    NegotiateFlag.EXTENDED_SESSIONSECURITY |
    NegotiateFlag.VERSION |
    NegotiateFlag.N128 |
    NegotiateFlag.KEY_EXCH |
    NegotiateFlag.N56) >>>
  0;

/** Options of the server role. */
export interface NtlmServerOptions {
  /** The password of an account, or undefined when the account does not exist. */
  lookupPassword: (user: string, domain: string) => string | undefined;
  /** NetBIOS computer name announced in the challenge. */
  computerName?: string;
  /** NetBIOS domain (workgroup) name announced in the challenge. */
  domainName?: string;
  serverChallenge?: Buffer;
}

/** The server role of one NTLMv2 handshake. One instance per connection. */
export class NtlmServer {
  private negotiateMessage: Buffer | undefined;
  private challengeMessage: Buffer | undefined;
  private serverChallenge: Buffer | undefined;

  constructor(private readonly options: NtlmServerOptions) {}

  /** Answers a NEGOTIATE_MESSAGE with a CHALLENGE_MESSAGE carrying a timestamp, as Windows does. */
  challenge(negotiateRaw: Buffer): Buffer {
    const { flags: clientFlags } = parseNegotiate(negotiateRaw);
    this.negotiateMessage = negotiateRaw;
    this.serverChallenge = this.options.serverChallenge ?? randomBytes(8);
    const computer = this.options.computerName ?? 'WINRMTEST';
    const domain = this.options.domainName ?? 'WORKGROUP';
    const utf16 = (s: string) => Buffer.from(s, 'utf16le');
    let flags =
      ((clientFlags & SERVER_SUPPORTED) | NegotiateFlag.TARGET_INFO | NegotiateFlag.TARGET_TYPE_SERVER) >>> 0;
    // MS-NLMP 3.2.5.1.1: UNICODE wins when the client offers both encodings.
    if (flags & NegotiateFlag.UNICODE) flags = (flags & ~NegotiateFlag.OEM) >>> 0;
    this.challengeMessage = encodeChallenge({
      flags,
      serverChallenge: this.serverChallenge,
      targetName: computer,
      targetInfo: [
        { id: AvId.NbDomainName, value: utf16(domain) },
        { id: AvId.NbComputerName, value: utf16(computer) },
        { id: AvId.DnsDomainName, value: utf16(domain.toLowerCase()) },
        { id: AvId.DnsComputerName, value: utf16(computer.toLowerCase()) },
        { id: AvId.Timestamp, value: fileTimeNow() },
      ],
    });
    return this.challengeMessage;
  }

  /** Verifies an AUTHENTICATE_MESSAGE; returns the account and the session security on success. */
  authenticate(authRaw: Buffer): {
    user: string;
    domain: string;
    security: NtlmSessionSecurity;
    flags: number;
  } {
    if (!this.challengeMessage || !this.serverChallenge || !this.negotiateMessage) {
      throw new NtlmAuthError('AUTHENTICATE before CHALLENGE');
    }
    const auth = parseAuthenticate(authRaw);
    if (auth.ntResponse.length <= 24) throw new NtlmAuthError('only NTLMv2 responses are accepted');
    const password = this.options.lookupPassword(auth.user, auth.domain);
    if (password === undefined) throw new NtlmAuthError(`unknown user ${auth.user}`);
    const responseKey = ntowfv2(password, auth.user, auth.domain);
    const proof = auth.ntResponse.subarray(0, 16);
    const blob = auth.ntResponse.subarray(16);
    const expected = hmacMd5(responseKey, this.serverChallenge, blob);
    if (!timingSafeEqual(expected, proof)) throw new NtlmAuthError(`wrong password for ${auth.user}`);

    const keyExchangeKey = sessionBaseKey(responseKey, proof);
    const exportedSessionKey =
      auth.flags & NegotiateFlag.KEY_EXCH && auth.encryptedRandomSessionKey.length === 16
        ? rc4(keyExchangeKey, auth.encryptedRandomSessionKey)
        : keyExchangeKey;

    // blob: 28 fixed bytes (versions, reserved, time, client challenge, reserved), then AV pairs.
    const pairs = blob.length > 28 ? parseAvPairs(blob.subarray(28)) : [];
    const avFlags = pairs.find((p) => p.id === AvId.Flags)?.value;
    const micPresent =
      avFlags !== undefined && avFlags.length >= 4 && (avFlags.readUInt32LE(0) & AV_FLAG_MIC_PRESENT) !== 0;
    if (micPresent) {
      if (!auth.mic) throw new NtlmAuthError('MIC announced but missing');
      const zeroed = Buffer.from(authRaw);
      zeroed.fill(0, 72, 88);
      const mic = hmacMd5(exportedSessionKey, this.negotiateMessage, this.challengeMessage, zeroed);
      if (!timingSafeEqual(mic, auth.mic)) throw new NtlmAuthError('MIC check failed');
    }
    return {
      user: auth.user,
      domain: auth.domain,
      flags: auth.flags,
      security: new NtlmSessionSecurity(exportedSessionKey, auth.flags, 'server'),
    };
  }
}
