import type { Writable } from 'node:stream';

/**
 * Makes the writes of one tick leave as one. ssh2 hands each packet to the stream in three
 * writes (the length, the encrypted body, the tag: ssh2 1.x lib/protocol/crypto.js, the GCM and
 * chacha20 ciphers' encrypt), and with Nagle off (connect.ts) each became its own syscall and TCP
 * segment: measured, 7.9 writes per task-host on a 200-host run and the largest share of
 * kubemix's CPU (the kernel's loopback delivery is charged to the writer). Corking the stream
 * until the end of the tick sends them, and every other packet of that tick, as one writev; the
 * packet leaves in the same turn of the event loop, so no latency is added.
 */
export function coalesceWrites(stream: Writable): void {
  const write = stream.write.bind(stream);
  let corked = false;
  const uncork = () => {
    corked = false;
    stream.uncork();
  };
  stream.write = ((...args: Parameters<Writable['write']>) => {
    if (!corked) {
      corked = true;
      stream.cork();
      process.nextTick(uncork);
    }
    return write(...args);
  }) as Writable['write'];
}
