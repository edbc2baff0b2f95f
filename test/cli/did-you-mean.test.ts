import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance } from '../../src/cli/did-you-mean.js';

describe('editDistance', () => {
  it('counts insertions, deletions and substitutions (kitten -> sitting is 3)', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('abc', '')).toBe(3);
    expect(editDistance('same', 'same')).toBe(0);
  });

  it('counts two neighbouring letters swapped as one edit', () => {
    expect(editDistance('forsk', 'forks')).toBe(1);
    expect(editDistance('ca', 'abc')).toBe(3);
  });
});

describe('didYouMean', () => {
  const flags = ['--windows-workers', '--windows-version', '--windows-iso', '--forks', '--help', '-h', '-f'];

  it('names the flag one slip away', () => {
    expect(didYouMean('--windows-worker', flags)).toBe('--windows-workers');
    expect(didYouMean('--forkz', flags)).toBe('--forks');
    expect(didYouMean('--windows-versoin', flags)).toBe('--windows-version');
    expect(didYouMean('--WINDOWS-ISO', flags)).toBe('--windows-iso');
  });

  it('guesses nothing for short or far-off words', () => {
    expect(didYouMean('-v', flags)).toBeUndefined();
    expect(didYouMean('--verbose', flags)).toBeUndefined();
    expect(didYouMean('--frobnicate', flags)).toBeUndefined();
  });
});
