import { createHash, createHmac } from 'node:crypto';
import {
  CLIENT_SEAL_MAGIC,
  CLIENT_SIGN_MAGIC,
  NegotiateFlag,
  SERVER_SEAL_MAGIC,
  SERVER_SIGN_MAGIC,
} from './constants.js';
import { md4 } from './md4.js';

/** HMAC-MD5 over the concatenation of `parts`. */
export function hmacMd5(key: Uint8Array, ...parts: Uint8Array[]): Buffer {
  const mac = createHmac('md5', key);
  for (const p of parts) mac.update(p);
  return mac.digest();
}

const md5 = (...parts: Uint8Array[]): Buffer => {
  const hash = createHash('md5');
  for (const p of parts) hash.update(p);
  return hash.digest();
};

/** NTOWFv2 (MS-NLMP 3.3.2): HMAC_MD5(MD4(UNICODE(password)), UNICODE(Uppercase(user) + domain)). */
export function ntowfv2(password: string, user: string, domain: string): Buffer {
  const ntHash = md4(Buffer.from(password, 'utf16le'));
  return hmacMd5(ntHash, Buffer.from(user.toUpperCase() + domain, 'utf16le'));
}

/**
 * The NTLMv2 client blob ("temp" in MS-NLMP 3.3.2): versions, time, client challenge and the
 * AV pairs (already serialised, MsvAvEOL included).
 */
export function ntlmv2Blob(timestamp: Buffer, clientChallenge: Buffer, avPairs: Buffer): Buffer {
  const head = Buffer.from([1, 1, 0, 0, 0, 0, 0, 0]);
  return Buffer.concat([head, timestamp, clientChallenge, Buffer.alloc(4), avPairs, Buffer.alloc(4)]);
}

/** NTProofStr = HMAC_MD5(ResponseKeyNT, ServerChallenge || blob). */
export function ntProofStr(responseKey: Buffer, serverChallenge: Buffer, blob: Buffer): Buffer {
  return hmacMd5(responseKey, serverChallenge, blob);
}

/** LMv2 response: HMAC_MD5(ResponseKeyLM, ServerChallenge || ClientChallenge) || ClientChallenge. */
export function lmv2Response(responseKey: Buffer, serverChallenge: Buffer, clientChallenge: Buffer): Buffer {
  return Buffer.concat([hmacMd5(responseKey, serverChallenge, clientChallenge), clientChallenge]);
}

/** SessionBaseKey = HMAC_MD5(ResponseKeyNT, NTProofStr); for NTLMv2 it is also the KeyExchangeKey. */
export function sessionBaseKey(responseKey: Buffer, proof: Buffer): Buffer {
  return hmacMd5(responseKey, proof);
}

/** Current time as a FILETIME (100 ns ticks since 1601-01-01), little-endian. */
export function fileTimeNow(now = Date.now()): Buffer {
  const ticks = (BigInt(now) + 11_644_473_600_000n) * 10_000n;
  const out = Buffer.alloc(8);
  out.writeBigUInt64LE(ticks);
  return out;
}

/** The four per-direction keys of a session (MS-NLMP 3.4.5.2, 3.4.5.3). */
export interface SessionKeys {
  clientSignKey: Buffer;
  serverSignKey: Buffer;
  clientSealKey: Buffer;
  serverSealKey: Buffer;
}

/** SIGNKEY and SEALKEY for both directions, for extended session security. */
export function deriveSessionKeys(exportedSessionKey: Buffer, flags: number): SessionKeys {
  let sealBase = exportedSessionKey;
  if (!(flags & NegotiateFlag.N128)) {
    sealBase =
      flags & NegotiateFlag.N56 ? exportedSessionKey.subarray(0, 7) : exportedSessionKey.subarray(0, 5);
  }
  return {
    clientSignKey: md5(exportedSessionKey, Buffer.from(CLIENT_SIGN_MAGIC, 'latin1')),
    serverSignKey: md5(exportedSessionKey, Buffer.from(SERVER_SIGN_MAGIC, 'latin1')),
    clientSealKey: md5(sealBase, Buffer.from(CLIENT_SEAL_MAGIC, 'latin1')),
    serverSealKey: md5(sealBase, Buffer.from(SERVER_SEAL_MAGIC, 'latin1')),
  };
}
