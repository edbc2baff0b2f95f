import { describe, expect, it } from 'vitest';
import { md4 } from '../../../src/transport/winrm/ntlm/md4.js';
import { Rc4, rc4 } from '../../../src/transport/winrm/ntlm/rc4.js';

describe('md4 (RFC 1320 test suite)', () => {
  const suite: [string, string][] = [
    ['', '31d6cfe0d16ae931b73c59d7e0c089c0'],
    ['a', 'bde52cb31de33e46245e05fbdbd6fb24'],
    ['abc', 'a448017aaf21d8525fc10ae87aa6729d'],
    ['message digest', 'd9130a8164549fe818874806e1c7014b'],
    ['abcdefghijklmnopqrstuvwxyz', 'd79e1c308aa5bbcdeea8ed63df412da9'],
    ['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', '043f8582f241db351ce627e153e7f0e4'],
    [
      '12345678901234567890123456789012345678901234567890123456789012345678901234567890',
      'e33b4ddc9c38f2199c3e7b164fcc0536',
    ],
  ];
  for (const [input, digest] of suite) {
    it(`MD4("${input.slice(0, 20)}${input.length > 20 ? '...' : ''}")`, () => {
      expect(md4(Buffer.from(input, 'latin1')).toString('hex')).toBe(digest);
    });
  }

  it('handles inputs around the 56-byte padding boundary', () => {
    // Lengths 55, 56 and 64 take different padding paths; they must differ and be 16 bytes.
    const digests = [55, 56, 63, 64, 65].map((n) => md4(Buffer.alloc(n, 0x61)).toString('hex'));
    expect(new Set(digests).size).toBe(5);
    for (const d of digests) expect(d).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('rc4 (known vectors)', () => {
  const vectors: [string, string, string][] = [
    ['Key', 'Plaintext', 'bbf316e8d940af0ad3'],
    ['Wiki', 'pedia', '1021bf0420'],
    ['Secret', 'Attack at dawn', '45a01f645fc35b383552544b9bf5'],
  ];
  for (const [key, plain, cipher] of vectors) {
    it(`RC4(${key}, ${plain})`, () => {
      expect(rc4(Buffer.from(key), Buffer.from(plain)).toString('hex')).toBe(cipher);
    });
  }

  it('continues the key stream across update() calls', () => {
    const handle = new Rc4(Buffer.from('Secret'));
    const first = handle.update(Buffer.from('Attack'));
    const second = handle.update(Buffer.from(' at dawn'));
    expect(Buffer.concat([first, second]).toString('hex')).toBe('45a01f645fc35b383552544b9bf5');
  });

  it('the WebAssembly path (long inputs) and the JS path (short inputs) produce the same key stream', () => {
    const data = Buffer.from(Array.from({ length: 100_000 }, (_, i) => (i * 7) & 0xff));
    const whole = new Rc4(Buffer.from('0123456789abcdef')).update(data);
    const pieces = new Rc4(Buffer.from('0123456789abcdef'));
    const parts: Buffer[] = [];
    // Alternate short (JS) and long (WASM) updates: the state must carry over between engines.
    for (let at = 0, n = 0; at < data.length; n++) {
      const size = n % 2 === 0 ? 100 : 5000;
      parts.push(pieces.update(data.subarray(at, at + size)));
      at += size;
    }
    expect(Buffer.concat(parts).equals(whole)).toBe(true);
    const reference = Buffer.from(rc4(Buffer.from('Key'), Buffer.alloc(1000)).subarray(0, 9));
    // RC4(Key, zeros) is the key stream: XOR with "Plaintext" gives the known vector.
    expect(Buffer.from(reference.map((b, i) => b ^ 'Plaintext'.charCodeAt(i))).toString('hex')).toBe(
      'bbf316e8d940af0ad3',
    );
  });

  it('decrypts what it encrypted', () => {
    const data = Buffer.from('Grüße, 東京', 'utf8');
    expect(rc4(Buffer.from('k'), rc4(Buffer.from('k'), data)).toString('utf8')).toBe('Grüße, 東京');
  });
});
