/**
 * RC4 as a stateful stream cipher. NTLM sealing keeps one RC4 handle per direction for the
 * whole session, so the key stream must continue across messages (hence a class, not a
 * function). Node 20's OpenSSL 3 only offers RC4 through the legacy provider, which is off.
 *
 * Large inputs run through a 194-byte WebAssembly loop (source: rc4.wat beside this file),
 * about three times faster than the JS loop, which stays for small inputs and as a fallback.
 */

const WASM_BASE64 =
  'AGFzbQEAAAABBQFgAX8AAwIBAAUDAQABBxICBm1lbW9yeQIABWNyeXB0AAAKkwEBkAEBBn9BgAIoAgAhAUGEAigCACECQYAIIQNBgAggAGohBAJAA0AgAyAETw0BIAFBAWpB/wFxIQEgAS0AACEFIAIgBWpB/wFxIQIgAi0AACEGIAEgBjoAACACIAU6AAAgAyADLQAAIAUgBmpB/wFxLQAAczoAACADQQFqIQMMAAsLQYACIAE2AgBBhAIgAjYCAAs=';

/** Inputs shorter than this stay in JS: copying state in and out costs more than it saves. */
const WASM_THRESHOLD = 256;
const DATA_OFFSET = 1024;
const PAGE = 65_536;

/** The slice of the WebAssembly API used here (the project's lib settings do not declare it). */
interface WasmMemory {
  buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => unknown;
  Instance: new (module: unknown) => { exports: Record<string, unknown> };
}

interface Rc4Engine {
  memory: WasmMemory;
  crypt: (length: number) => void;
}

let engine: Rc4Engine | null | undefined;

function wasmEngine(): Rc4Engine | null {
  if (engine !== undefined) return engine;
  try {
    const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
    const instance = new wasm.Instance(new wasm.Module(Buffer.from(WASM_BASE64, 'base64')));
    const exports = instance.exports as { memory: WasmMemory; crypt: (length: number) => void };
    engine = { memory: exports.memory, crypt: exports.crypt };
  } catch {
    engine = null;
  }
  return engine;
}

export class Rc4 {
  /** S box (0..255) followed by i and j as little-endian u32 (256, 260): the WASM layout. */
  private readonly state = new Uint8Array(264);

  constructor(key: Uint8Array) {
    if (key.length === 0) throw new TypeError('RC4 key must not be empty');
    const s = this.state;
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
    const wasm = data.length >= WASM_THRESHOLD ? wasmEngine() : null;
    return wasm ? this.updateWasm(data, wasm) : this.updateJs(data);
  }

  private updateWasm(data: Uint8Array, wasm: Rc4Engine): Buffer {
    const needed = DATA_OFFSET + data.length;
    if (wasm.memory.buffer.byteLength < needed) {
      wasm.memory.grow(Math.ceil((needed - wasm.memory.buffer.byteLength) / PAGE));
    }
    const memory = new Uint8Array(wasm.memory.buffer);
    memory.set(this.state, 0);
    memory.set(data, DATA_OFFSET);
    wasm.crypt(data.length);
    this.state.set(memory.subarray(0, 264));
    return Buffer.from(memory.subarray(DATA_OFFSET, needed));
  }

  private updateJs(data: Uint8Array): Buffer {
    const s = this.state;
    const view = new DataView(s.buffer, s.byteOffset, 264);
    let i = view.getUint32(256, true);
    let j = view.getUint32(260, true);
    const out = Buffer.allocUnsafe(data.length);
    for (let n = 0; n < data.length; n++) {
      i = (i + 1) & 0xff;
      const si = s[i] as number;
      j = (j + si) & 0xff;
      const sj = s[j] as number;
      s[i] = sj;
      s[j] = si;
      out[n] = (data[n] as number) ^ (s[(si + sj) & 0xff] as number);
    }
    view.setUint32(256, i, true);
    view.setUint32(260, j, true);
    return out;
  }
}

/** One-shot RC4 with a fresh key (RC4K in MS-NLMP). */
export function rc4(key: Uint8Array, data: Uint8Array): Buffer {
  return new Rc4(key).update(data);
}
