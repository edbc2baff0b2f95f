import { describe, expect, it } from 'vitest';
import { SpecError } from '../../src/errors/index.js';
import { loadVersions } from '../../src/versions/versions.js';

describe('loadVersions', () => {
  it('takes the spec overrides over the pinned versions', () => {
    const v = loadVersions({
      flannel: 'v0.26.0',
      'containerd-linux': '2.3.5',
      'containerd-linux-sha256': 'ab'.repeat(32),
    });
    expect(v['flannel']).toBe('v0.26.0');
    expect(v['containerd-linux']).toBe('2.3.5');
  });

  it('refuses a version pinned with a SHA-256 overridden without its digest, naming the entry', () => {
    let error: unknown;
    try {
      loadVersions({ 'containerd-linux': '2.3.5', 'debian-13-runc': '1.1.15+ds1-2+b5' }, 'lab.yaml');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SpecError);
    expect((error as SpecError).message).toBe(
      [
        'lab.yaml: versions.containerd-linux: is pinned with a SHA-256: also give versions.containerd-linux-sha256, the digest of the file for 2.3.5',
        'lab.yaml: versions.debian-13-runc: is pinned with a SHA-256: also give versions.debian-13-runc-sha256, the digest of the file for 1.1.15+ds1-2+b5',
      ].join('\n'),
    );
    expect((error as SpecError).exitCode).toBe(2);
  });
});
