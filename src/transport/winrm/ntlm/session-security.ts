import { NegotiateFlag } from './constants.js';
import { deriveSessionKeys, hmacMd5 } from './crypto.js';
import { Rc4 } from './rc4.js';

/** A message failed its NTLM signature check (tampered, out of order, or wrong key). */
export class NtlmSignatureError extends Error {}

/**
 * NTLM session security with extended session security (MS-NLMP 3.4.4.2, 3.4.3): one RC4
 * handle and one sequence number per direction, continuing across every message of the
 * connection. The client and the server roles differ only in which keys they send with.
 */
export class NtlmSessionSecurity {
  private readonly outSign: Buffer;
  private readonly inSign: Buffer;
  private readonly outSeal: Rc4;
  private readonly inSeal: Rc4;
  private readonly keyExchange: boolean;
  private outSeq = 0;
  private inSeq = 0;

  constructor(exportedSessionKey: Buffer, flags: number, role: 'client' | 'server') {
    const keys = deriveSessionKeys(exportedSessionKey, flags);
    const client = role === 'client';
    this.outSign = client ? keys.clientSignKey : keys.serverSignKey;
    this.inSign = client ? keys.serverSignKey : keys.clientSignKey;
    this.outSeal = new Rc4(client ? keys.clientSealKey : keys.serverSealKey);
    this.inSeal = new Rc4(client ? keys.serverSealKey : keys.clientSealKey);
    this.keyExchange = (flags & NegotiateFlag.KEY_EXCH) !== 0;
  }

  /** SEAL: encrypts `message` and returns it with its 16-byte signature. */
  seal(message: Uint8Array): { sealed: Buffer; signature: Buffer } {
    // Order matters: the message is encrypted before the checksum with the same RC4 handle.
    const sealed = this.outSeal.update(message);
    const signature = this.sign(message, this.outSign, this.outSeal, this.outSeq);
    this.outSeq++;
    return { sealed, signature };
  }

  /** UNSEAL: decrypts `sealed` and verifies `signature`; throws NtlmSignatureError on mismatch. */
  unseal(sealed: Uint8Array, signature: Uint8Array): Buffer {
    const message = this.inSeal.update(sealed);
    const expected = this.sign(message, this.inSign, this.inSeal, this.inSeq);
    if (signature.length !== 16 || !expected.equals(Buffer.from(signature))) {
      throw new NtlmSignatureError(`NTLM signature mismatch on message ${this.inSeq}`);
    }
    this.inSeq++;
    return message;
  }

  private sign(message: Uint8Array, signKey: Buffer, handle: Rc4, seq: number): Buffer {
    const seqBytes = Buffer.alloc(4);
    seqBytes.writeUInt32LE(seq >>> 0);
    let checksum = hmacMd5(signKey, seqBytes, message).subarray(0, 8);
    if (this.keyExchange) checksum = handle.update(checksum);
    const out = Buffer.alloc(16);
    out.writeUInt32LE(1, 0);
    checksum.copy(out, 4);
    seqBytes.copy(out, 12);
    return out;
  }
}
