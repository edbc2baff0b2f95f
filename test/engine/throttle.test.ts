import { describe, expect, it } from 'vitest';
import { Throttle, throttleValue } from '../../src/engine/throttle.js';

/** Lets every settled promise run its continuations. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('Throttle', () => {
  it('lets at most `limit` holders in, in the order they asked', async () => {
    const throttle = new Throttle();
    const started: string[] = [];
    const releases = new Map<string, () => void>();
    for (const name of ['a', 'b', 'c', 'd'])
      void throttle.acquire(2).then((release) => {
        started.push(name);
        releases.set(name, release);
      });
    await settle();
    expect(started).toEqual(['a', 'b']);
    releases.get('b')!();
    await settle();
    expect(started).toEqual(['a', 'b', 'c']);
    // Releasing twice gives back one place only.
    releases.get('b')!();
    await settle();
    expect(started).toEqual(['a', 'b', 'c']);
    releases.get('a')!();
    await settle();
    expect(started).toEqual(['a', 'b', 'c', 'd']);
  });

  it('serialises holders with limit 1 and does not limit with 0', async () => {
    const throttle = new Throttle();
    const first = await throttle.acquire(1);
    let second = false;
    void throttle.acquire(1).then(() => {
      second = true;
    });
    // 0 (Ansible's default) never waits, whatever else holds the throttle.
    await throttle.acquire(0);
    await settle();
    expect(second).toBe(false);
    first();
    await settle();
    expect(second).toBe(true);
  });

  it('reads throttle values the way Ansible converts them with int()', () => {
    expect(throttleValue(1)).toBe(1);
    expect(throttleValue(' 2 ')).toBe(2);
    expect(throttleValue('0')).toBe(0);
    expect(throttleValue('one')).toBeUndefined();
    expect(throttleValue(1.5)).toBeUndefined();
    expect(throttleValue(undefined)).toBeUndefined();
  });
});
