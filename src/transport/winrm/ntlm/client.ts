import { randomBytes } from 'node:crypto';
import { AV_FLAG_MIC_PRESENT, AvId, CLIENT_FLAGS, NegotiateFlag } from './constants.js';
import {
  fileTimeNow,
  hmacMd5,
  lmv2Response,
  ntlmv2Blob,
  ntowfv2,
  ntProofStr,
  sessionBaseKey,
} from './crypto.js';
import {
  type AvPair,
  encodeAuthenticate,
  encodeAvPairs,
  encodeNegotiate,
  parseChallenge,
} from './messages.js';
import { rc4 } from './rc4.js';
import { NtlmSessionSecurity } from './session-security.js';

/** Splits `DOMAIN\user` into its parts; `user@domain` (UPN) and plain names keep an empty domain. */
export function splitAccount(account: string): { user: string; domain: string } {
  const slash = account.indexOf('\\');
  if (slash >= 0) return { domain: account.slice(0, slash), user: account.slice(slash + 1) };
  return { user: account, domain: '' };
}

/** Values normally random or taken from the clock; tests pin them to reproduce MS-NLMP examples. */
export interface NtlmClientOverrides {
  clientChallenge?: Buffer;
  exportedSessionKey?: Buffer;
  /** FILETIME to use when the server sent no MsvAvTimestamp. */
  timestamp?: Buffer;
}

/** What a finished client handshake yields. */
export interface NtlmClientResult {
  /** The AUTHENTICATE_MESSAGE to send. */
  message: Buffer;
  /** Sealing/signing for the rest of the connection. */
  security: NtlmSessionSecurity;
  flags: number;
  exportedSessionKey: Buffer;
}

/** Thrown when the server's challenge cannot be used (e.g. it refuses sealing). */
export class NtlmNegotiationError extends Error {}

/**
 * The client side of one NTLMv2 handshake (MS-NLMP 3.1.5.1): NEGOTIATE, then AUTHENTICATE
 * from the server's CHALLENGE. One instance per connection; NTLM is connection-bound.
 */
export class NtlmClient {
  private negotiateMessage: Buffer | undefined;

  constructor(
    private readonly credentials: { account: string; password: string; workstation?: string },
    private readonly overrides: NtlmClientOverrides = {},
  ) {}

  /** The NEGOTIATE_MESSAGE (type 1). */
  negotiate(): Buffer {
    this.negotiateMessage = encodeNegotiate(CLIENT_FLAGS);
    return this.negotiateMessage;
  }

  /** Answers a CHALLENGE_MESSAGE (type 2) with an AUTHENTICATE_MESSAGE (type 3). */
  authenticate(challengeRaw: Buffer, options: { requireSeal?: boolean } = {}): NtlmClientResult {
    const negotiate = this.negotiateMessage ?? this.negotiate();
    const challenge = parseChallenge(challengeRaw);
    const flags = (challenge.flags & CLIENT_FLAGS) >>> 0;
    if (!(flags & NegotiateFlag.EXTENDED_SESSIONSECURITY)) {
      throw new NtlmNegotiationError('server does not offer NTLMv2 extended session security');
    }
    if (options.requireSeal !== false && !(flags & NegotiateFlag.SEAL && flags & NegotiateFlag.SIGN)) {
      throw new NtlmNegotiationError(
        'server does not offer NTLM signing and sealing (needed for message encryption)',
      );
    }
    const { user, domain } = splitAccount(this.credentials.account);
    const responseKey = ntowfv2(this.credentials.password, user, domain);
    const clientChallenge = this.overrides.clientChallenge ?? randomBytes(8);

    const serverTime = challenge.targetInfo.find((p) => p.id === AvId.Timestamp)?.value;
    const pairs: AvPair[] = challenge.targetInfo.map((p) => ({ id: p.id, value: Buffer.from(p.value) }));
    if (serverTime) {
      // MS-NLMP 3.1.5.1.2: with a server timestamp the client must send a MIC and say so.
      const existing = pairs.find((p) => p.id === AvId.Flags);
      if (existing)
        existing.value.writeUInt32LE((existing.value.readUInt32LE(0) | AV_FLAG_MIC_PRESENT) >>> 0);
      else {
        const value = Buffer.alloc(4);
        value.writeUInt32LE(AV_FLAG_MIC_PRESENT);
        pairs.push({ id: AvId.Flags, value });
      }
    }
    const avBytes =
      serverTime || pairs.length !== challenge.targetInfo.length
        ? encodeAvPairs(pairs)
        : challenge.targetInfoRaw;
    const time = serverTime ?? this.overrides.timestamp ?? fileTimeNow();
    const blob = ntlmv2Blob(time, clientChallenge, avBytes);
    const proof = ntProofStr(responseKey, challenge.serverChallenge, blob);
    const ntResponse = Buffer.concat([proof, blob]);
    const lmResponse = serverTime
      ? Buffer.alloc(24)
      : lmv2Response(responseKey, challenge.serverChallenge, clientChallenge);
    const keyExchangeKey = sessionBaseKey(responseKey, proof);

    let exportedSessionKey: Buffer = keyExchangeKey;
    let encryptedRandomSessionKey: Buffer = Buffer.alloc(0);
    if (flags & NegotiateFlag.KEY_EXCH) {
      exportedSessionKey = this.overrides.exportedSessionKey ?? randomBytes(16);
      encryptedRandomSessionKey = rc4(keyExchangeKey, exportedSessionKey);
    }
    const message = encodeAuthenticate({
      flags,
      lmResponse,
      ntResponse,
      domain,
      user,
      workstation: this.credentials.workstation ?? '',
      encryptedRandomSessionKey,
    });
    if (serverTime) hmacMd5(exportedSessionKey, negotiate, challenge.raw, message).copy(message, 72);
    return {
      message,
      security: new NtlmSessionSecurity(exportedSessionKey, flags, 'client'),
      flags,
      exportedSessionKey,
    };
  }
}
