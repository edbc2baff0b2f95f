import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeStaticRelease, pinnedStaticRelease } from '../../fixtures/lab/static-release.js';
import { loadVersions } from '../../src/versions/versions.js';
import { testTempDir } from '../helpers/temp.js';

// The lab serves this release and lab specs pin its digests, possibly from different processes
// (a lab started by fixtures/cluster-lab/main.ts, a spec written by a test): the bytes must depend
// on the versions alone.
describe("the lab's containerd static release", () => {
  it('has the same bytes for the same versions, other bytes for another version', () => {
    const a = makeStaticRelease({ containerd: '2.3.4', runc: '1.4.3' });
    const b = makeStaticRelease({ containerd: '2.3.4', runc: '1.4.3' });
    expect(b.versions).toEqual(a.versions);
    expect(b.versions['containerd-linux-sha256']).toMatch(/^[0-9a-f]{64}$/);
    expect(
      makeStaticRelease({ containerd: '2.3.3', runc: '1.4.3' }).versions['containerd-linux-sha256'],
    ).not.toBe(a.versions['containerd-linux-sha256']);
  });

  it("is a gzip tar of containerd's bin/ layout under the upstream URLs of the pinned versions", async () => {
    const pinned = loadVersions();
    const release = pinnedStaticRelease();
    const tarball = `containerd-${pinned['containerd-linux']}-linux-amd64.tar.gz`;
    expect(Object.keys(release.urls)).toEqual([
      `https://github.com/containerd/containerd/releases/download/v${pinned['containerd-linux']}/${tarball}`,
      `https://github.com/opencontainers/runc/releases/download/v${pinned['runc-linux']}/runc.amd64`,
      `https://raw.githubusercontent.com/containerd/containerd/v${pinned['containerd-linux']}/containerd.service`,
    ]);
    const dir = await testTempDir('static-release-check');
    await writeFile(join(dir, tarball), release.files[tarball]!);
    const listing = execFileSync('tar', ['-tzvf', join(dir, tarball)], { encoding: 'utf8' });
    expect(
      listing
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split(/\s+/).at(-1)),
    ).toEqual(['bin/', 'bin/containerd', 'bin/containerd-shim-runc-v2', 'bin/ctr']);
    expect(listing).toMatch(/^-rwxr-xr-x 0\/0 .* bin\/containerd$/m);
  });
});
