/**
 * MD4 (RFC 1320) in plain TypeScript. Node 20 links OpenSSL 3, whose default provider has no
 * MD4, and NTLM's NTOWFv2 needs it; MD4 is used here only for that, never as a security hash.
 */

const rotl = (x: number, n: number): number => ((x << n) | (x >>> (32 - n))) >>> 0;

/** Returns the 16-byte MD4 digest of `data`. */
export function md4(data: Uint8Array): Buffer {
  const bitLength = data.length * 8;
  // Pad: 0x80, zeros to 56 mod 64, then the bit length as a 64-bit little-endian number.
  const padded = Buffer.alloc((((data.length + 8) >> 6) + 1) * 64);
  padded.set(data);
  padded[data.length] = 0x80;
  padded.writeUInt32LE(bitLength >>> 0, padded.length - 8);
  padded.writeUInt32LE(Math.floor(bitLength / 0x1_0000_0000), padded.length - 4);

  let a = 0x67452301;
  let b = 0xefcdab89;
  let c = 0x98badcfe;
  let d = 0x10325476;
  const x = new Uint32Array(16);
  const f = (p: number, q: number, r: number) => (p & q) | (~p & r);
  const g = (p: number, q: number, r: number) => (p & q) | (p & r) | (q & r);
  const h = (p: number, q: number, r: number) => p ^ q ^ r;

  for (let block = 0; block < padded.length; block += 64) {
    for (let i = 0; i < 16; i++) x[i] = padded.readUInt32LE(block + i * 4);
    const [aa, bb, cc, dd] = [a, b, c, d];
    const round1 = [3, 7, 11, 19];
    for (let i = 0; i < 16; i++) {
      const s = round1[i % 4]!;
      const t = (a + f(b, c, d) + x[i]!) >>> 0;
      [a, b, c, d] = [d, rotl(t, s), b, c];
    }
    const round2 = [3, 5, 9, 13];
    for (let i = 0; i < 16; i++) {
      const k = (i % 4) * 4 + Math.floor(i / 4);
      const t = (a + g(b, c, d) + x[k]! + 0x5a827999) >>> 0;
      [a, b, c, d] = [d, rotl(t, round2[i % 4]!), b, c];
    }
    const order3 = [0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15];
    const round3 = [3, 9, 11, 15];
    for (let i = 0; i < 16; i++) {
      const t = (a + h(b, c, d) + x[order3[i]!]! + 0x6ed9eba1) >>> 0;
      [a, b, c, d] = [d, rotl(t, round3[i % 4]!), b, c];
    }
    a = (a + aa) >>> 0;
    b = (b + bb) >>> 0;
    c = (c + cc) >>> 0;
    d = (d + dd) >>> 0;
  }
  const out = Buffer.alloc(16);
  out.writeUInt32LE(a, 0);
  out.writeUInt32LE(b, 4);
  out.writeUInt32LE(c, 8);
  out.writeUInt32LE(d, 12);
  return out;
}
