import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClusterLab, startClusterLab } from '../../fixtures/lab/cluster-lab.js';
import { compiledStandinsDir } from '../../fixtures/lab/install-standins.js';
import type { HostState } from '../../fixtures/lab/standins/runtime.js';
import {
  type LabStaticRelease,
  makeStaticRelease,
  publishStaticRelease,
} from '../../fixtures/lab/static-release.js';
import { kubernetesVersionVars } from '../../src/plan/index.js';
import { loadVersions } from '../../src/versions/versions.js';
import { testTempDir } from '../helpers/temp.js';
import { failures, labPlanVars, labSsh, runClusterPlays } from './helpers.js';

// Where prepare-linux gets containerd, on lab hosts that play Debian 12 (bookworm: containerd
// 1.6.20) and Debian 13 (trixie: 1.7.24), per the lab's Debian indices: both are below
// containerd's minimum for every Kubernetes minor kubemix supports (1.36+), so at the default
// version the static release is installed; the distribution package path is exercised with
// Kubernetes 1.31 and 1.34 (below the supported range, which the plan enforces; the playbook's
// choice works the same for any minor with a containerd-minimum row, given here as a spec's
// `versions:` would). Indices: fixtures/lab/standins/tools/distributions.ts.
// The lab's pkgs.k8s.io publishes the default release under Debian revision 2.1 (as
// kubernetes/release#3623 saw for 1.28.9), so every install here proves the revision is read from
// the repository (apt-cache madison), not assumed.
// The lab's internet holds a lab-made static release; its digests reach the playbook through `versions`, as
// a spec's `versions:` would carry them, so the SHA-256 check really runs.
if (!existsSync(join(compiledStandinsDir(), 'kubeadm.js')))
  throw new Error('the lab stand-ins are not compiled: run npm run build first');

const HOSTS = {
  bookworm: 'lab-01',
  trixie: 'lab-02',
  bookwormWrongDigest: 'lab-03',
  trixieShadowed: 'lab-04',
  bookwormOldPin: 'lab-05',
  noMinimum: 'lab-06',
  trixieKubernetes134: 'lab-07',
  preRelease: 'lab-08',
} as const;

const DEFAULT_MINOR = loadVersions()['kubernetes']!.split('.').slice(0, 2).join('.');
/** A minor's containerd minimums as prepare-linux words them: `2.3.0+ or 2.2.0+`, `a+, b+ or c+`. */
function minimumWords(minor: string): string {
  const words = loadVersions()
    [`containerd-minimum-${minor}`]!.split(' ')
    .map((v) => `${v}+`);
  return words.length > 1 ? `${words.slice(0, -1).join(', ')} or ${words.at(-1)}` : words[0]!;
}

/** Rows of containerd's RELEASES.md for minors kubemix no longer builds (commit 301026e58c61). */
const OLDER_MINIMUMS = {
  'containerd-minimum-1.31': '2.1.0 2.0.0 1.7.20 1.6.34',
  'containerd-minimum-1.34': '2.1.3 2.0.6 1.7.28 1.6.39',
};
const DEFAULT_KUBERNETES = loadVersions()['kubernetes']!;
/** The plan vars of another Kubernetes version (the sandbox image stays the default's). */
const atVersion = (version: string) => kubernetesVersionVars(version, undefined);

let lab: ClusterLab;
let internetDir: string;
let release: LabStaticRelease;
let base: Record<string, unknown>;
const hadRealContainerd = existsSync('/usr/local/bin/containerd');

beforeAll(async () => {
  internetDir = await testTempDir('lab-internet');
  const pinned = loadVersions();
  release = makeStaticRelease({ containerd: pinned['containerd-linux']!, runc: pinned['runc-linux']! });
  await publishStaticRelease(internetDir, release);
  lab = await startClusterLab({
    count: 8,
    packageRevisions: { [DEFAULT_KUBERNETES]: '2.1' },
    distribution: 'bookworm',
    distributions: {
      [HOSTS.trixie]: 'trixie',
      [HOSTS.trixieShadowed]: 'trixie',
      [HOSTS.trixieKubernetes134]: 'trixie',
    },
    internetDir,
  });
  base = await labPlanVars(lab, [HOSTS.bookworm]);
});

afterAll(async () => {
  await lab?.stop();
  if (internetDir) await rm(internetDir, { recursive: true, force: true });
});

/** prepare-linux on one host, with `versions` entries over the pinned ones. */
function prepare(host: string, versions: Record<string, string> = {}, vars: Record<string, unknown> = {}) {
  return runClusterPlays(lab, [{ file: 'prepare-linux.yml', hosts: [host] }], {
    ...base,
    ...vars,
    versions: { ...(base['versions'] as Record<string, string>), ...versions },
  });
}

async function sh(host: string, command: string) {
  const t = labSsh(lab, lab.hosts.find((h) => h.name === host)!);
  try {
    return await t.exec({ command });
  } finally {
    await t.close();
  }
}

const hostState = async (host: string) =>
  JSON.parse((await sh(host, 'cat /var/lib/kubemix-lab/host.json')).stdout) as HostState;

/** What the run's debug step said about where containerd comes from. */
const reported = (run: Awaited<ReturnType<typeof prepare>>) =>
  run.result.records.find((r) => r.task === 'Report where containerd comes from')?.msg ?? '';

describe("prepare-linux: containerd for the cluster's Kubernetes version", () => {
  it('Debian 13 for Kubernetes 1.31: the distribution package (1.7.24) meets the minimum and is installed with runc', async () => {
    const run = await prepare(HOSTS.trixie, OLDER_MINIMUMS, atVersion('1.31.2'));
    // The template writes containerd's configuration version 3, which containerd 1.7 refuses
    // (services/server/config/config.go at v1.7.24: "unsupported config version"): a containerd
    // 1.x package can only be chosen for minors below kubemix's supported range, whose minimums
    // are all 2.2 or newer.
    expect(failures(run)).toContain(
      "lab-02: Restart containerd for its new configuration: kubemix lab: containerd.service's journal: containerd: failed to load TOML from /etc/containerd/config.toml: unsupported config version `3`",
    );
    expect(reported(run)).toContain('debian-13 offers containerd 1.7.24~ds1-6+deb13u1, which meets');
    const state = await hostState(HOSTS.trixie);
    expect(state.packages).toMatchObject({ containerd: '1.7.24~ds1-6+deb13u1', runc: '1.1.15+ds1-2+b4' });
    expect((state.network ?? []).filter((n) => n.includes('github'))).toEqual([]);
    const r = await sh(
      HOSTS.trixie,
      'containerd --version; ls /usr/local/bin; systemctl is-active containerd',
    );
    expect(r.stdout).toBe(
      'containerd github.com/containerd/containerd 1.7.24~ds1 1.7.24~ds1-6+deb13u1\ninactive\n',
    );
  });

  it('Debian 12 at the default Kubernetes: the candidate 1.6.20 is below the minimum, so the pinned static release is installed', async () => {
    const run = await prepare(HOSTS.bookworm, release.versions);
    expect(failures(run)).toBe('');
    expect(reported(run)).toBe(
      `debian-12 offers containerd 1.6.20~ds1-1+deb12u3, below the minimum for Kubernetes ${DEFAULT_MINOR} (${loadVersions()[`containerd-minimum-${DEFAULT_MINOR}`]}): installing containerd ${release.versions['containerd-linux']} from containerd's static release`,
    );
    const state = await hostState(HOSTS.bookworm);
    expect(state.packages['containerd']).toBeUndefined();
    // The repository's revision of the release, as apt-cache madison listed it.
    for (const p of ['kubelet', 'kubeadm', 'kubectl'])
      expect(state.packages[p]).toBe(`${DEFAULT_KUBERNETES}-2.1`);
    expect(state.network).toEqual(expect.arrayContaining(Object.keys(release.urls).map((u) => `curl ${u}`)));
    const r = await sh(
      HOSTS.bookworm,
      'containerd --version && ls /usr/local/bin /usr/local/sbin /usr/local/lib/systemd/system && systemctl is-active containerd && grep -c "SystemdCgroup = true" /etc/containerd/config.toml',
    );
    expect(r.stdout).toBe(
      [
        `containerd github.com/containerd/containerd/v2 v${release.versions['containerd-linux']} 0000000000000000000000000000000000000000`,
        '/usr/local/bin:',
        'containerd',
        'containerd-shim-runc-v2',
        'ctr',
        '',
        '/usr/local/lib/systemd/system:',
        'containerd.service',
        '',
        '/usr/local/sbin:',
        'runc',
        'active',
        '1',
        '',
      ].join('\n'),
    );
    // The lab host's /usr/local is its own: this machine's stays as it was.
    expect(existsSync('/usr/local/bin/containerd')).toBe(hadRealContainerd);

    const again = await prepare(HOSTS.bookworm, release.versions);
    expect(failures(again)).toBe('');
    const install = again.result.records.find((x) => x.task.startsWith('containerd from containerd'));
    expect(install?.status).toBe('ok');
  });

  it('Debian 13 for Kubernetes 1.34: 1.7.24 is below its 1.7.28+, so the static release is installed', async () => {
    const run = await prepare(
      HOSTS.trixieKubernetes134,
      { ...release.versions, ...OLDER_MINIMUMS },
      atVersion('1.34.1'),
    );
    expect(failures(run)).toBe('');
    expect(reported(run)).toContain(
      'debian-13 offers containerd 1.7.24~ds1-6+deb13u1, below the minimum for Kubernetes 1.34 (2.1.3 2.0.6 1.7.28 1.6.39)',
    );
    const state = await hostState(HOSTS.trixieKubernetes134);
    expect(state.packages['containerd']).toBeUndefined();
    expect(state.packages['kubelet']).toBe('1.34.1-1.1');
    expect((await sh(HOSTS.trixieKubernetes134, 'containerd --version')).stdout).toContain(
      ` v${release.versions['containerd-linux']} `,
    );
  });

  it('a static release file whose SHA-256 differs from the pin fails naming the file; nothing is installed', async () => {
    // The digests playbooks/versions.yaml pins are upstream's: the lab-made tarball is not that file.
    const pinned = loadVersions();
    const run = await prepare(HOSTS.bookwormWrongDigest, {
      'containerd-linux-sha256': pinned['containerd-linux-sha256']!,
      'runc-linux-sha256': pinned['runc-linux-sha256']!,
      'containerd-linux-service-sha256': pinned['containerd-linux-service-sha256']!,
    });
    expect(failures(run)).toContain(
      `containerd-${pinned['containerd-linux']}-linux-amd64.tar.gz: SHA-256 is ${release.versions['containerd-linux-sha256']}, expected ${pinned['containerd-linux-sha256']} (versions containerd-linux-sha256)`,
    );
    const r = await sh(
      HOSTS.bookwormWrongDigest,
      'ls -A /usr/local/bin /usr/local/sbin /usr/local/lib/systemd/system',
    );
    expect(r.stdout).toBe('/usr/local/bin:\n\n/usr/local/lib/systemd/system:\n\n/usr/local/sbin:\n');
  });

  it('the containerd PATH finds is checked: an old one in /usr/local/bin shadowing the package fails with both versions', async () => {
    // A leftover manual install of 1.7.19 (containerd's release layout), found before /usr/bin.
    const leftover = await sh(
      HOSTS.trixieShadowed,
      `printf '#!/bin/sh\\necho "containerd github.com/containerd/containerd v1.7.19 2bf793ef6dc9a18e00cb12efb64355c2c9d5eb41"\\n' > /usr/local/bin/containerd && chmod 755 /usr/local/bin/containerd`,
    );
    expect(leftover.exitCode).toBe(0);
    const run = await prepare(HOSTS.trixieShadowed, OLDER_MINIMUMS, atVersion('1.31.2'));
    expect(failures(run)).toContain(
      "The installed containerd meets the minimum for the cluster's Kubernetes version: non-zero return code\n  1.7.19\n  containerd --version: containerd 1.7.19 is below the minimum for Kubernetes 1.31, 2.1.0+, 2.0.0+, 1.7.20+ or 1.6.34+ (containerd RELEASES.md, Kubernetes Support)",
    );
  });

  it('a static release pin below the minimum stops before anything is downloaded', async () => {
    const old = makeStaticRelease({ containerd: '1.7.19', runc: '1.1.13' });
    const run = await prepare(HOSTS.bookwormOldPin, old.versions);
    expect(failures(run)).toContain(
      `versions containerd-linux: containerd 1.7.19 is below the minimum for Kubernetes ${DEFAULT_MINOR}, ${minimumWords(DEFAULT_MINOR)}`,
    );
    expect(
      ((await hostState(HOSTS.bookwormOldPin)).network ?? []).filter((n) => n.includes('github')),
    ).toEqual([]);
  });

  it('a Kubernetes minor without a containerd minimum stops before the host is touched', async () => {
    const run = await prepare(HOSTS.noMinimum, {}, atVersion('1.40.1'));
    expect(failures(run)).toContain(
      'no containerd minimum for Kubernetes 1.40: add containerd-minimum-1.40 to playbooks/versions.yaml',
    );
    const r = await sh(HOSTS.noMinimum, 'ls -A /etc/modules-load.d');
    expect(r.stdout).toBe('');
  });

  it('a pre-release comes from the prerelease repository, at its `~` Debian version', async () => {
    const minor = DEFAULT_KUBERNETES.split('.').slice(0, 2).join('.');
    const run = await prepare(HOSTS.preRelease, release.versions, atVersion(`${minor}.0-rc.1`));
    expect(failures(run)).toBe('');
    expect((await sh(HOSTS.preRelease, 'cat /etc/apt/sources.list.d/kubernetes.list')).stdout).toBe(
      `deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] https://pkgs.k8s.io/core:/prerelease:/v${minor}/deb/ /\n`,
    );
    expect((await hostState(HOSTS.preRelease)).packages['kubelet']).toBe(`${minor}.0~rc.1-1.1`);
  });

  it('a release the repository does not have fails naming the package and what it has', async () => {
    const run = await prepare(
      HOSTS.noMinimum,
      release.versions,
      atVersion(`${DEFAULT_KUBERNETES.split('.').slice(0, 2).join('.')}.99`),
    );
    expect(failures(run)).toMatch(
      /the Kubernetes package repository has no kubelet 1\.\d+\.99 \(apt-cache madison kubelet lists: 1\.\d+\.10-1\.1 /,
    );
  });
});
