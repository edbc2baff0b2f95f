/**
 * RC4 as a stateful stream cipher. NTLM sealing keeps one RC4 handle per direction for the
 * whole session, so the key stream must continue across messages (hence a class, not a
 * function). Node 20's OpenSSL 3 only offers RC4 through the legacy provider, which is off.
 */
export class Rc4 {
  private readonly s = new Uint8Array(256);
  private i = 0;
  private j = 0;

  constructor(key: Uint8Array) {
    if (key.length === 0) throw new TypeError('RC4 key must not be empty');
    const s = this.s;
    for (let n = 0; n < 256; n++) s[n] = n;
    let j = 0;
    for (let n = 0; n < 256; n++) {
      j = (j + s[n]! + key[n % key.length]!) & 0xff;
      const t = s[n]!;
      s[n] = s[j]!;
      s[j] = t;
    }
  }

  /** Encrypts or decrypts (the same operation) `data`, advancing the key stream. */
  update(data: Uint8Array): Buffer {
    const s = this.s;
    const out = Buffer.allocUnsafe(data.length);
    let { i, j } = this;
    for (let n = 0; n < data.length; n++) {
      i = (i + 1) & 0xff;
      j = (j + s[i]!) & 0xff;
      const t = s[i]!;
      s[i] = s[j]!;
      s[j] = t;
      out[n] = data[n]! ^ s[(s[i]! + s[j]!) & 0xff]!;
    }
    this.i = i;
    this.j = j;
    return out;
  }
}

/** One-shot RC4 with a fresh key (RC4K in MS-NLMP). */
export function rc4(key: Uint8Array, data: Uint8Array): Buffer {
  return new Rc4(key).update(data);
}
