import { describe, expect, it } from 'vitest';
import { cidrsOverlap, parseCidr } from '../../src/spec/cidr.js';

describe('parseCidr', () => {
  it('parses and clears host bits', () => {
    expect(parseCidr('10.244.0.0/16')).toEqual({ network: 0x0af40000, prefix: 16 });
    expect(parseCidr('10.244.1.7/16')).toEqual({ network: 0x0af40000, prefix: 16 });
    expect(parseCidr('0.0.0.0/0')).toEqual({ network: 0, prefix: 0 });
  });

  it('refuses malformed ranges', () => {
    for (const bad of ['10.244.0.0', '10.244.0.0/33', '256.0.0.0/8', '10.0.0/8', 'a.b.c.d/8'])
      expect(parseCidr(bad), bad).toBeUndefined();
  });
});

describe('cidrsOverlap', () => {
  const overlap = (a: string, b: string) => cidrsOverlap(parseCidr(a)!, parseCidr(b)!);
  it('detects containment and disjoint ranges', () => {
    expect(overlap('10.96.0.0/12', '10.100.0.0/16')).toBe(true);
    expect(overlap('10.100.0.0/16', '10.96.0.0/12')).toBe(true);
    expect(overlap('10.244.0.0/16', '10.96.0.0/12')).toBe(false);
    expect(overlap('10.0.0.0/24', '10.0.1.0/24')).toBe(false);
    expect(overlap('0.0.0.0/0', '192.168.0.0/16')).toBe(true);
  });
});
