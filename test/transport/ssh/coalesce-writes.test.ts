import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { coalesceWrites } from '../../../src/transport/ssh/coalesce-writes.js';

/** A stream that records how its bytes reached it: each entry one write or writev to the "socket". */
function recordingStream() {
  const arrivals: string[][] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      arrivals.push([chunk.toString()]);
      done();
    },
    writev(chunks, done) {
      arrivals.push(chunks.map((c) => (c.chunk as Buffer).toString()));
      done();
    },
  });
  return { stream, arrivals };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('coalesceWrites', () => {
  it("sends a packet's three pieces, written in one tick, as one writev", async () => {
    const { stream, arrivals } = recordingStream();
    coalesceWrites(stream);
    stream.write(Buffer.from('len'));
    stream.write(Buffer.from('body'));
    stream.write(Buffer.from('tag'));
    expect(arrivals).toEqual([]);
    await nextTurn();
    expect(arrivals).toEqual([['len', 'body', 'tag']]);
  });

  it('keeps writes of different ticks apart, in order', async () => {
    const { stream, arrivals } = recordingStream();
    coalesceWrites(stream);
    stream.write(Buffer.from('a'));
    await nextTurn();
    stream.write(Buffer.from('b'));
    stream.write(Buffer.from('c'));
    await nextTurn();
    expect(arrivals).toEqual([['a'], ['b', 'c']]);
  });

  it('still ends the stream after the last write', async () => {
    const { stream, arrivals } = recordingStream();
    coalesceWrites(stream);
    const finished = new Promise((resolve) => stream.on('finish', resolve));
    stream.write(Buffer.from('last'));
    stream.end();
    await finished;
    expect(arrivals.flat()).toEqual(['last']);
  });
});
