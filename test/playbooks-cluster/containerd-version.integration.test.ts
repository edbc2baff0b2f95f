import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { meetsContainerdMinimum } from '../../src/versions/containerd-minimum.js';
import { loadVersions } from '../../src/versions/versions.js';

// playbooks/files/linux/containerd-version.sh, run by the real sh as prepare-linux runs it on a
// node, against versions.yaml's rows of containerd's "Kubernetes Support" table.
const SCRIPT = fileURLToPath(new URL('../../playbooks/files/linux/containerd-version.sh', import.meta.url));
const versions = loadVersions();
// Rows of containerd's RELEASES.md "Kubernetes Support" for minors kubemix no longer builds, kept
// as data for the script's rules (1.31 and 1.34: commit 301026e58c61; 1.35: tag v2.4.2 line 167).
const OLDER_ROWS: Record<string, string> = {
  '1.31': '2.1.0 2.0.0 1.7.20 1.6.34',
  '1.33': '2.1.0 2.0.4 1.7.24 1.6.36',
  '1.34': '2.1.3 2.0.6 1.7.28 1.6.39',
  '1.35': '2.2.0 2.1.5 1.7.28',
};
const minimums = (minor: string) => versions[`containerd-minimum-${minor}`] ?? OLDER_ROWS[minor]!;

async function check(text: string, minor: string, source?: string) {
  const r = await execa('sh', [SCRIPT, text, minimums(minor), ...(source ? [minor, source] : [])], {
    reject: false,
  });
  return { rc: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

describe('containerd-version.sh', () => {
  // Candidates of deb.debian.org's Packages indices, read 2026-11-23.
  it('decides per distribution candidate and Kubernetes minor as containerd RELEASES.md lists', async () => {
    const table: [string, string, number][] = [
      ['1.6.20~ds1-1+deb12u3', '1.31', 1], // Debian 12: 1.6 needs 1.6.34+
      ['1.7.24~ds1-6+deb13u1', '1.31', 0], // Debian 13: 1.7.20+
      ['1.7.24~ds1-6+deb13u1', '1.33', 0], // 1.7.24+
      ['1.7.24~ds1-6+deb13u1', '1.34', 1], // 1.7.28+
      ['1.7.24~ds1-6+deb13u1', '1.36', 1], // no 1.x for 1.36
      ['2.1.9+ds1-5', '1.35', 0], // sid: 2.1.5+
      ['2.1.9+ds1-5', '1.36', 1], // 2.1 is not listed, and older than 2.2
      ['2.2.3', '1.37', 1], // 1.37 lists 2.3+ and 2.4+
      ['2.3.4', '1.37', 0],
      ['1:1.7.28-1', '1.34', 0], // format only: an epoch is not part of the release version
    ];
    for (const [candidate, minor, rc] of table) {
      expect([candidate, minor, (await check(candidate, minor)).rc]).toEqual([candidate, minor, rc]);
      // The plan's rule (src/versions/containerd-minimum.ts) answers as the node's script does.
      expect([candidate, minor, meetsContainerdMinimum(candidate, minimums(minor))]).toEqual([
        candidate,
        minor,
        rc === 0,
      ]);
    }
  });

  it('lets the pinned static release through for every Kubernetes minor with a row', async () => {
    const minors = Object.keys(versions)
      .filter((k) => k.startsWith('containerd-minimum-'))
      .map((k) => k.slice('containerd-minimum-'.length));
    expect(minors).toEqual(['1.36', '1.37']);
    for (const minor of minors)
      expect([minor, (await check(versions['containerd-linux']!, minor)).rc]).toEqual([minor, 0]);
  });

  it('accepts a branch newer than every listed one, not an unlisted older one', async () => {
    expect((await check('2.3.4', '1.31')).rc).toBe(0); // 1.31's row ends at 2.1
    expect((await check('2.0.6', '1.35')).rc).toBe(1); // 2.0 is not listed for 1.35
    expect([
      meetsContainerdMinimum('2.3.4', minimums('1.31')),
      meetsContainerdMinimum('2.0.6', minimums('1.35')),
    ]).toEqual([true, false]);
    expect(meetsContainerdMinimum('(none)', minimums('1.37'))).toBeUndefined();
  });

  it("reads what `containerd --version` prints for Debian's package and for a release build", async () => {
    expect(
      await check('containerd github.com/containerd/containerd 1.7.24~ds1 1.7.24~ds1-6+deb13u1', '1.31'),
    ).toMatchObject({ rc: 0, stdout: '1.7.24' });
    expect(
      await check(
        'containerd github.com/containerd/containerd/v2 v2.3.4 db8809540e1a7a9da5d518876894933ff55692ab',
        '1.36',
      ),
    ).toMatchObject({ rc: 0, stdout: '2.3.4' });
  });

  it('fails with one line naming both versions, and exit 2 when there is no version', async () => {
    expect(await check('1.6.20~ds1-1+deb12u3', '1.31', 'containerd --version')).toEqual({
      rc: 1,
      stdout: '1.6.20',
      stderr:
        'containerd --version: containerd 1.6.20 is below the minimum for Kubernetes 1.31, 2.1.0+, 2.0.0+, 1.7.20+ or 1.6.34+ (containerd RELEASES.md, Kubernetes Support)',
    });
    expect(await check('(none)', '1.31', 'apt-cache policy')).toEqual({
      rc: 2,
      stdout: '',
      stderr: "apt-cache policy: no containerd version in '(none)'",
    });
  });
});
