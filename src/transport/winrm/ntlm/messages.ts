import { AvId, OUR_VERSION, SIGNATURE } from './constants.js';

/** One AV_PAIR of a target info block. */
export interface AvPair {
  id: number;
  value: Buffer;
}

/** A parsed CHALLENGE_MESSAGE (MS-NLMP 2.2.1.2). */
export interface ChallengeMessage {
  flags: number;
  serverChallenge: Buffer;
  targetName: string;
  targetInfo: AvPair[];
  /** The raw target info bytes, as the NTLMv2 blob must echo them. */
  targetInfoRaw: Buffer;
  raw: Buffer;
}

/** A parsed AUTHENTICATE_MESSAGE (MS-NLMP 2.2.1.3). */
export interface AuthenticateMessage {
  flags: number;
  lmResponse: Buffer;
  ntResponse: Buffer;
  domain: string;
  user: string;
  workstation: string;
  encryptedRandomSessionKey: Buffer;
  /** The 16-byte MIC, or undefined when the message is too short to carry one. */
  mic?: Buffer;
  /** Offset of the MIC field inside `raw` (72). */
  micOffset: number;
  raw: Buffer;
}

/** Thrown for a malformed NTLM message. */
export class NtlmFormatError extends Error {}

const utf16 = (s: string) => Buffer.from(s, 'utf16le');

function field(buf: Buffer, at: number): Buffer {
  if (buf.length < at + 8) throw new NtlmFormatError('NTLM message truncated');
  const len = buf.readUInt16LE(at);
  const offset = buf.readUInt32LE(at + 4);
  if (len === 0) return Buffer.alloc(0);
  if (offset + len > buf.length) throw new NtlmFormatError('NTLM field points outside the message');
  return buf.subarray(offset, offset + len);
}

function checkHeader(buf: Buffer, type: number): void {
  if (buf.length < 12 || !buf.subarray(0, 8).equals(SIGNATURE)) {
    throw new NtlmFormatError('not an NTLMSSP message');
  }
  const actual = buf.readUInt32LE(8);
  if (actual !== type) throw new NtlmFormatError(`expected NTLM message type ${type}, got ${actual}`);
}

/** Which NTLM message type a token is (1, 2 or 3), or 0 when it is not NTLMSSP. */
export function messageType(buf: Buffer): number {
  if (buf.length < 12 || !buf.subarray(0, 8).equals(SIGNATURE)) return 0;
  return buf.readUInt32LE(8);
}

/** Lays out a message: fixed header of `headerLength` bytes, then the payload fields in order. */
function layout(header: Buffer, fields: { at: number; value: Buffer }[]): Buffer {
  let offset = header.length;
  for (const f of fields) {
    header.writeUInt16LE(f.value.length, f.at);
    header.writeUInt16LE(f.value.length, f.at + 2);
    header.writeUInt32LE(offset, f.at + 4);
    offset += f.value.length;
  }
  return Buffer.concat([header, ...fields.map((f) => f.value)]);
}

/** NEGOTIATE_MESSAGE with no domain or workstation (MS-NLMP 2.2.1.1). */
export function encodeNegotiate(flags: number): Buffer {
  const header = Buffer.alloc(40);
  SIGNATURE.copy(header, 0);
  header.writeUInt32LE(1, 8);
  header.writeUInt32LE(flags >>> 0, 12);
  OUR_VERSION.copy(header, 32);
  return layout(header, [
    { at: 16, value: Buffer.alloc(0) },
    { at: 24, value: Buffer.alloc(0) },
  ]);
}

/** Reads the flags of a NEGOTIATE_MESSAGE. */
export function parseNegotiate(buf: Buffer): { flags: number } {
  checkHeader(buf, 1);
  if (buf.length < 16) throw new NtlmFormatError('NTLM negotiate message truncated');
  return { flags: buf.readUInt32LE(12) };
}

/** Parses a target info block into AV pairs, stopping at MsvAvEOL. */
export function parseAvPairs(buf: Buffer): AvPair[] {
  const pairs: AvPair[] = [];
  let at = 0;
  while (at + 4 <= buf.length) {
    const id = buf.readUInt16LE(at);
    const len = buf.readUInt16LE(at + 2);
    if (id === AvId.EOL) return pairs;
    if (at + 4 + len > buf.length) throw new NtlmFormatError('AV pair runs past the target info');
    pairs.push({ id, value: Buffer.from(buf.subarray(at + 4, at + 4 + len)) });
    at += 4 + len;
  }
  throw new NtlmFormatError('target info has no MsvAvEOL');
}

/** Serialises AV pairs, appending MsvAvEOL. */
export function encodeAvPairs(pairs: AvPair[]): Buffer {
  const parts: Buffer[] = [];
  for (const p of pairs) {
    const head = Buffer.alloc(4);
    head.writeUInt16LE(p.id, 0);
    head.writeUInt16LE(p.value.length, 2);
    parts.push(head, p.value);
  }
  parts.push(Buffer.alloc(4));
  return Buffer.concat(parts);
}

/** CHALLENGE_MESSAGE, as a server sends it. */
export function encodeChallenge(options: {
  flags: number;
  serverChallenge: Buffer;
  targetName: string;
  targetInfo: AvPair[];
}): Buffer {
  const header = Buffer.alloc(56);
  SIGNATURE.copy(header, 0);
  header.writeUInt32LE(2, 8);
  header.writeUInt32LE(options.flags >>> 0, 20);
  options.serverChallenge.copy(header, 24);
  OUR_VERSION.copy(header, 48);
  const unicode = (options.flags & 0x1) !== 0;
  return layout(header, [
    { at: 12, value: unicode ? utf16(options.targetName) : Buffer.from(options.targetName, 'latin1') },
    { at: 40, value: encodeAvPairs(options.targetInfo) },
  ]);
}

/** Parses a CHALLENGE_MESSAGE. */
export function parseChallenge(buf: Buffer): ChallengeMessage {
  checkHeader(buf, 2);
  if (buf.length < 48) throw new NtlmFormatError('NTLM challenge message truncated');
  const flags = buf.readUInt32LE(20);
  const targetInfoRaw = Buffer.from(field(buf, 40));
  return {
    flags,
    serverChallenge: Buffer.from(buf.subarray(24, 32)),
    targetName: field(buf, 12).toString(flags & 0x1 ? 'utf16le' : 'latin1'),
    targetInfo: targetInfoRaw.length ? parseAvPairs(targetInfoRaw) : [],
    targetInfoRaw,
    raw: buf,
  };
}

/** AUTHENTICATE_MESSAGE with a zeroed MIC field (the caller fills the MIC in afterwards). */
export function encodeAuthenticate(options: {
  flags: number;
  lmResponse: Buffer;
  ntResponse: Buffer;
  domain: string;
  user: string;
  workstation: string;
  encryptedRandomSessionKey: Buffer;
}): Buffer {
  const header = Buffer.alloc(88);
  SIGNATURE.copy(header, 0);
  header.writeUInt32LE(3, 8);
  header.writeUInt32LE(options.flags >>> 0, 60);
  OUR_VERSION.copy(header, 64);
  return layout(header, [
    { at: 28, value: utf16(options.domain) },
    { at: 36, value: utf16(options.user) },
    { at: 44, value: utf16(options.workstation) },
    { at: 12, value: options.lmResponse },
    { at: 20, value: options.ntResponse },
    { at: 52, value: options.encryptedRandomSessionKey },
  ]);
}

/** Parses an AUTHENTICATE_MESSAGE. */
export function parseAuthenticate(buf: Buffer): AuthenticateMessage {
  checkHeader(buf, 3);
  if (buf.length < 64) throw new NtlmFormatError('NTLM authenticate message truncated');
  const flags = buf.readUInt32LE(60);
  // Strings are UTF-16LE when UNICODE was negotiated, OEM (treated as latin1) otherwise.
  const text = (b: Buffer) => b.toString(flags & 0x1 ? 'utf16le' : 'latin1');
  // The payload starts after the header; a MIC is there only if the header is 88 bytes long.
  const fieldOffsets = [12, 20, 28, 36, 44, 52]
    .map((at) => (buf.readUInt16LE(at) > 0 ? buf.readUInt32LE(at + 4) : buf.length))
    .filter((o) => o >= 64);
  const payloadStart = Math.min(buf.length, ...fieldOffsets);
  const message: AuthenticateMessage = {
    flags,
    lmResponse: Buffer.from(field(buf, 12)),
    ntResponse: Buffer.from(field(buf, 20)),
    domain: text(field(buf, 28)),
    user: text(field(buf, 36)),
    workstation: text(field(buf, 44)),
    encryptedRandomSessionKey: Buffer.from(field(buf, 52)),
    micOffset: 72,
    raw: buf,
  };
  if (payloadStart >= 88) message.mic = Buffer.from(buf.subarray(72, 88));
  return message;
}
