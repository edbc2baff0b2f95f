import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { compareDebianVersions } from '../../src/artifacts/debian-version.js';

// The real dpkg of this Debian machine judges: every ordered pair of these versions must compare
// as `dpkg --compare-versions` says.
const VERSIONS = [
  '1.37.2-1.1',
  '1.37.2-2.1',
  '1.37.10-1.1',
  '1.37.0~rc.1-1.1',
  '1.37.0~rc.0-1.1',
  '1.37.0~beta.0-1.1',
  '1.37.0-1.1',
  '1.9.1-1.1',
  '1.10.0-1.1',
  '1:1.0-1',
  '1.7.24~ds1-6+deb13u1',
  '1.7.24~ds1-6',
  '1.7.24-1',
  '2.1.9+ds1-5',
  '1.0',
  '1.0a-1',
  '1.0+-1',
  '1.0~~-1',
  '1.0~-1',
];

const dpkgLess = (a: string, b: string) => {
  try {
    execFileSync('dpkg', ['--compare-versions', a, 'lt', b], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

describe('Debian version order', () => {
  it('agrees with the real dpkg on every pair', () => {
    for (const a of VERSIONS)
      for (const b of VERSIONS)
        expect([a, b, compareDebianVersions(a, b) < 0]).toEqual([a, b, dpkgLess(a, b)]);
  });
});
