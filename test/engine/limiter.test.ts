import { describe, expect, it } from 'vitest';
import { inSlots, Limiter } from '../../src/engine/limiter.js';

/** A promise the test settles by hand. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Lets every pending promise callback run (no timers: microtasks only). */
const settle = async () => {
  for (let i = 0; i < 20; i += 1) await Promise.resolve();
};

describe('inSlots (the forks of kubemix up and kubemix run)', () => {
  it('runs at most `limit` hosts at once, starts them in host order and answers in host order', async () => {
    const hosts = ['a', 'b', 'c', 'd'];
    const gates = new Map(hosts.map((h) => [h, deferred()]));
    const started: string[] = [];
    const all = inSlots(hosts, new Limiter(2), async (host, index) => {
      started.push(host);
      await gates.get(host)!.promise;
      return `${host}${index}`;
    });
    await settle();
    expect(started).toEqual(['a', 'b']);
    // The second host ends first: its slot goes to the next host in order, not to a newcomer.
    gates.get('b')!.resolve();
    await settle();
    expect(started).toEqual(['a', 'b', 'c']);
    gates.get('a')!.resolve();
    await settle();
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    gates.get('d')!.resolve();
    gates.get('c')!.resolve();
    expect(await all).toEqual(['a0', 'b1', 'c2', 'd3']);
  });

  it('gives the slot back when a host throws, and rejects with that error', async () => {
    const limiter = new Limiter(1);
    const ran: string[] = [];
    await expect(
      inSlots(['a', 'b'], limiter, async (host) => {
        ran.push(host);
        if (host === 'a') throw new Error('a failed');
        return host;
      }),
    ).rejects.toThrow('a failed');
    await settle();
    expect(ran).toEqual(['a', 'b']);
    // The slot is free again: a new holder gets it at once.
    const release = await limiter.acquire();
    release();
  });

  it('treats a limit below one as one (a library caller passing forks 0 does not wait forever)', async () => {
    const limiter = new Limiter(0);
    expect(limiter.limit).toBe(1);
    expect(await inSlots(['a', 'b'], limiter, async (host) => host)).toEqual(['a', 'b']);
  });
});
