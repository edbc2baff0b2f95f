import { describe, expect, it } from 'vitest';
import { madisonLine } from '../../fixtures/lab/standins/tools/apt.js';
import { policyBlock } from '../../fixtures/lab/standins/tools/apt-cache.js';
import { DISTRIBUTIONS, parseOsRelease } from '../../fixtures/lab/standins/tools/distributions.js';

// What the real apt-cache 2.6.1 printed on this project's Debian 12 machine, 2026-11-23, with
// deb.debian.org's bookworm (+ -updates, -security) and trixie indices in a private apt directory
// (Dir::State::Lists, Dir::State::status pointing at a dpkg status file with the installed
// version, which real hosts have at /var/lib/dpkg/status). The stand-in must print the same.
const REAL = {
  bookwormNotInstalled: `containerd:
  Installed: (none)
  Candidate: 1.6.20~ds1-1+deb12u3
  Version table:
     1.6.20~ds1-1+deb12u3 500
        500 http://deb.debian.org/debian bookworm/main amd64 Packages
     1.6.20~ds1-1+deb12u2 500
        500 http://deb.debian.org/debian-security bookworm-security/main amd64 Packages
`,
  bookwormInstalledFromIndex: `containerd:
  Installed: 1.6.20~ds1-1+deb12u3
  Candidate: 1.6.20~ds1-1+deb12u3
  Version table:
 *** 1.6.20~ds1-1+deb12u3 500
        500 http://deb.debian.org/debian bookworm/main amd64 Packages
        100 /var/lib/dpkg/status
     1.6.20~ds1-1+deb12u2 500
        500 http://deb.debian.org/debian-security bookworm-security/main amd64 Packages
`,
  bookwormInstalledOlder: `containerd:
  Installed: 1.6.19~ds1-1
  Candidate: 1.6.20~ds1-1+deb12u3
  Version table:
     1.6.20~ds1-1+deb12u3 500
        500 http://deb.debian.org/debian bookworm/main amd64 Packages
     1.6.20~ds1-1+deb12u2 500
        500 http://deb.debian.org/debian-security bookworm-security/main amd64 Packages
 *** 1.6.19~ds1-1 100
        100 /var/lib/dpkg/status
`,
  bookwormInstalledBetween: `containerd:
  Installed: 1.6.20~ds1-1+deb12u2a
  Candidate: 1.6.20~ds1-1+deb12u3
  Version table:
     1.6.20~ds1-1+deb12u3 500
        500 http://deb.debian.org/debian bookworm/main amd64 Packages
 *** 1.6.20~ds1-1+deb12u2a 100
        100 /var/lib/dpkg/status
     1.6.20~ds1-1+deb12u2 500
        500 http://deb.debian.org/debian-security bookworm-security/main amd64 Packages
`,
  bookwormInstalledNewer: `containerd:
  Installed: 1.7.99~lab1-1
  Candidate: 1.7.99~lab1-1
  Version table:
 *** 1.7.99~lab1-1 100
        100 /var/lib/dpkg/status
     1.6.20~ds1-1+deb12u3 500
        500 http://deb.debian.org/debian bookworm/main amd64 Packages
     1.6.20~ds1-1+deb12u2 500
        500 http://deb.debian.org/debian-security bookworm-security/main amd64 Packages
`,
  trixieNotInstalled: `containerd:
  Installed: (none)
  Candidate: 1.7.24~ds1-6+deb13u1
  Version table:
     1.7.24~ds1-6+deb13u1 500
        500 http://deb.debian.org/debian trixie/main amd64 Packages
        500 http://deb.debian.org/debian-security trixie-security/main amd64 Packages
runc:
  Installed: (none)
  Candidate: 1.1.15+ds1-2+b4
  Version table:
     1.1.15+ds1-2+b4 500
        500 http://deb.debian.org/debian trixie/main amd64 Packages
`,
};

describe('apt-cache policy in the lab', () => {
  const bookworm = DISTRIBUTIONS['bookworm']!.packages['containerd']!;
  const trixie = DISTRIBUTIONS['trixie']!.packages;

  it('prints what the real apt-cache printed for the same index and dpkg status', () => {
    expect(policyBlock('containerd', bookworm, undefined)).toBe(REAL.bookwormNotInstalled);
    expect(policyBlock('containerd', bookworm, '1.6.20~ds1-1+deb12u3')).toBe(REAL.bookwormInstalledFromIndex);
    expect(policyBlock('containerd', bookworm, '1.6.19~ds1-1')).toBe(REAL.bookwormInstalledOlder);
    expect(policyBlock('containerd', bookworm, '1.6.20~ds1-1+deb12u2a')).toBe(REAL.bookwormInstalledBetween);
    expect(policyBlock('containerd', bookworm, '1.7.99~lab1-1')).toBe(REAL.bookwormInstalledNewer);
    expect(
      policyBlock('containerd', trixie['containerd']!, undefined) +
        policyBlock('runc', trixie['runc']!, undefined),
    ).toBe(REAL.trixieNotInstalled);
  });

  it('each modelled os-release names its own codename and version', () => {
    for (const [codename, d] of Object.entries(DISTRIBUTIONS)) {
      const fields = parseOsRelease(d.osRelease);
      expect([fields['ID'], fields['VERSION_ID'], fields['VERSION_CODENAME']]).toEqual([
        d.id,
        d.versionId,
        codename,
      ]);
    }
  });

  it('prints apt-cache madison lines as the real one does', () => {
    // The real apt-cache 2.6.1 on this project's Debian 12 machine (2026-11-28).
    expect(
      madisonLine('bash', '5.2.15-2+b13', 'http://deb.debian.org/debian bookworm/main amd64 Packages'),
    ).toBe('      bash | 5.2.15-2+b13 | http://deb.debian.org/debian bookworm/main amd64 Packages');
    // pkgs.k8s.io's flat repository, as public upgrade notes quote `apt-cache madison kubeadm`.
    expect(
      madisonLine('kubeadm', '1.28.7-1.1', 'https://pkgs.k8s.io/core:/stable:/v1.28/deb  Packages'),
    ).toBe('   kubeadm | 1.28.7-1.1 | https://pkgs.k8s.io/core:/stable:/v1.28/deb  Packages');
    expect(
      madisonLine('kubeadm', '1.27.16-1.1', 'https://pkgs.k8s.io/core:/stable:/v1.27/deb  Packages'),
    ).toBe('   kubeadm | 1.27.16-1.1 | https://pkgs.k8s.io/core:/stable:/v1.27/deb  Packages');
  });
});
