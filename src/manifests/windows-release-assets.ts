/**
 * What each upstream release behind Windows flannel's downloads publishes, as a rule per range of
 * releases: the asset's file name and the digest files beside it, as that tag's own release process
 * makes them (read at the tags; each rule cites them). A version no rule describes is refused with
 * the reason: kubemix never guesses a URL or trusts a file whose name the release process did not
 * make. The newest rule of a project also covers later releases (upstream keeps a release process
 * until it changes it); the publisher's digest file, checked at install, catches a change.
 */

/** A digest algorithm whose file (`<asset>.<algorithm>`) a release may publish beside an asset. */
export type DigestAlgorithm = 'sha256' | 'sha512';

/** The projects Windows flannel's start script downloads from, by their download's name. */
export type WindowsReleaseProject =
  | 'flanneld-windows'
  | 'flannel-cni-plugin-windows'
  | 'cni-plugins-windows'
  | 'windows-cni';

/** One release of a project, as kubemix downloads it. */
export interface ReleaseAssets {
  /** `owner/name` on GitHub. */
  repository: string;
  /** The release's tag (`v0.3.3`). */
  tag: string;
  /** The asset's file name. */
  file: string;
  /**
   * The digest files the release publishes beside the asset (`<file>.sha256`, ...), each a
   * `sha256sum`/`shasum` line `<hex>  <name>`; empty when it publishes none.
   */
  digests: DigestAlgorithm[];
}

interface Rule {
  /** First release described (inclusive). */
  from: string;
  /** Last release described (inclusive); absent: every later release too. */
  through?: string;
  /** The asset's file name at a tag of the range. */
  file(tag: string): string;
  digests: DigestAlgorithm[];
}

/** A release inside a rule's range that kubemix refuses all the same, and why. */
interface Refusal {
  tag: string;
  why: string;
}

interface Project {
  repository: string;
  /** The versions entry that selects the release. */
  entry: string;
  /** The release tag a versions value names, or undefined when it names none. */
  tag(value: string): string | undefined;
  /** Comparable numbers of a tag from {@link Project.tag}. */
  order(tag: string): number[];
  example: string;
  /** Oldest first; a release older than the first rule's `from` was not read and is refused. */
  rules: Rule[];
  refusals: Refusal[];
}

const numbers = (match: RegExpExecArray | null): number[] => (match ? match.slice(1).map(Number) : []);
const SEMVER_TAG = /^v(\d+)\.(\d+)\.(\d+)$/;
/** `0.3.3` or `v0.3.3` -> `v0.3.3`. */
const vTag = (value: string) => (/^v?\d+\.\d+\.\d+$/.test(value) ? `v${value.replace(/^v/, '')}` : undefined);

const PROJECTS: Record<WindowsReleaseProject, Project> = {
  // flannel-io/flannel: .github/workflows/release.yml uploads dist/flannel* (softprops/action-gh-release
  // up to v0.26.x, `gh release upload ${GIT_TAG} dist/flannel*` later: v0.28.9 = 5cd0d52, lines 157-163)
  // after `make release`, whose tar.gz target builds dist/flanneld.exe (Makefile at v0.28.9, lines
  // 68-70 and 217). The same at every tag from v0.20.0 (916958a) to v0.28.9. No digest file is made:
  // neither release.yml nor the Makefile's release targets run a checksum tool over dist/.
  'flanneld-windows': {
    repository: 'flannel-io/flannel',
    entry: 'flannel',
    tag: (value) => (SEMVER_TAG.test(value) ? value : undefined),
    order: (tag) => numbers(SEMVER_TAG.exec(tag)),
    example: 'ghcr.io/flannel-io/flannel:v0.28.9',
    rules: [{ from: 'v0.20.0', file: () => 'flanneld.exe', digests: [] }],
    refusals: [],
  },
  // flannel-io/cni-plugin: .github/workflows/release.yml runs `make release` and uploads dist/* and
  // release/* (v1.9.1-flannel1 = 4c87e5d, lines 49-58); scripts/package.sh packs
  // cni-plugin-flannel-windows-${GOARCH}-${TAG}.tgz holding flannel-amd64.exe (lines 21-24) and writes
  // <tgz>.sha1, .sha256 and .sha512 in release/ (lines 45-48). TAG is the full tag up to v1.8.0-flannel1
  // (scripts/version.sh: GIT_TAG, then VERSION=${GIT_TAG}, TAG=${VERSION}; b5b1515) and its first six
  // characters from v1.8.0-flannel2 on (version.sh line 45 `VERSION="${GIT_TAG:0:6}"`, commit ff956db;
  // e38aaba). Read at every tag from v1.2.0-flannel3 (a7e7c35, the first to upload with softprops) to
  // v1.9.1-flannel1.
  'flannel-cni-plugin-windows': {
    repository: 'flannel-io/cni-plugin',
    entry: 'flannel-cni-plugin-windows',
    tag: (value) => {
      const tag = value.startsWith('v') ? value : `v${value}`;
      return /^v\d+\.\d+\.\d+-flannel\d+$/.test(tag) ? tag : undefined;
    },
    order: (tag) => numbers(/^v(\d+)\.(\d+)\.(\d+)-flannel(\d+)$/.exec(tag)),
    example: 'v1.9.1-flannel1',
    rules: [
      {
        from: 'v1.2.0-flannel3',
        through: 'v1.8.0-flannel1',
        file: (tag) => `cni-plugin-flannel-windows-amd64-${tag}.tgz`,
        digests: ['sha256', 'sha512'],
      },
      {
        from: 'v1.8.0-flannel2',
        file: (tag) => `cni-plugin-flannel-windows-amd64-${tag.slice(0, 6)}.tgz`,
        digests: ['sha256', 'sha512'],
      },
    ],
    refusals: [],
  },
  // containernetworking/plugins: .github/workflows/release.yaml, job windows_releases (v1.9.1 = adc3e6b,
  // lines 61-114): build_windows.sh into bin/, `tar cpfzv ../dist/cni-plugins-windows-amd64-<tag>.tgz .`,
  // then sha256sum and sha512sum of it into <tgz>.sha256 and .sha512, all of dist/ uploaded. The same
  // job, unchanged, at v1.7.0 (a5d507e); earlier tags also carry scripts/release.sh, a second (manual)
  // release process.
  'cni-plugins-windows': {
    repository: 'containernetworking/plugins',
    entry: 'cni-plugins-windows',
    tag: vTag,
    order: (tag) => numbers(SEMVER_TAG.exec(tag)),
    example: '1.9.1',
    rules: [
      {
        from: 'v1.7.0',
        file: (tag) => `cni-plugins-windows-amd64-${tag}.tgz`,
        digests: ['sha256', 'sha512'],
      },
    ],
    refusals: [],
  },
  // microsoft/windows-container-networking: .github/workflows/release.yml keeps the tag's `v`
  // (`version="${ref#refs/tags/}"`, v0.3.3 = 1d00493, line 42) and runs `make release VERSION=<tag>`
  // (line 68); the Makefile's release target zips out/ with -j into
  // release/windows-container-networking-cni-amd64-$(VERSION).zip and writes `shasum -a 256` and
  // `shasum -a 512` of ./release/<zip> into <zip>.sha256 and .sha512 (lines 70-78); the workflow
  // checks both exist and uploads release/* (lines 112-183). The same at v0.3.2 (1485fa9).
  // v0.3.1's release was renamed and rebuilt by hand after it was published (issues #112 and #115).
  'windows-cni': {
    repository: 'microsoft/windows-container-networking',
    entry: 'windows-cni',
    tag: vTag,
    order: (tag) => numbers(SEMVER_TAG.exec(tag)),
    example: '0.3.3',
    rules: [
      {
        from: 'v0.3.2',
        file: (tag) => `windows-container-networking-cni-amd64-${tag}.zip`,
        digests: ['sha256', 'sha512'],
      },
    ],
    refusals: [
      {
        tag: 'v0.3.1',
        why: "its asset was renamed and rebuilt by hand after the release (microsoft/windows-container-networking#112, #115), so neither its name nor its .sha512 is what the tag's release process published: use 0.3.2 or later",
      },
    ],
  },
};

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** The versions entry that selects a project's release (`windows-cni`; flanneld.exe: `flannel`). */
export function releaseEntry(project: WindowsReleaseProject): string {
  return PROJECTS[project].entry;
}

/**
 * The assets of the release a versions value selects (`0.3.3` for windows-cni, the image tag
 * `v0.28.9` for flanneld-windows), or why kubemix refuses it (one line, without the entry's name).
 */
export function releaseAssets(
  project: WindowsReleaseProject,
  value: string,
): { assets: ReleaseAssets } | { refused: string } {
  const p = PROJECTS[project];
  const tag = p.tag(value);
  if (tag === undefined)
    return { refused: `${JSON.stringify(value)} names no ${p.repository} release (e.g. ${p.example})` };
  const at = p.order(tag);
  const refusal = p.refusals.find((r) => compare(at, p.order(r.tag)) === 0);
  if (refusal) return { refused: `${p.repository} ${tag}: ${refusal.why}` };
  const oldest = p.rules[0]!.from;
  const rule = p.rules.find(
    (r) =>
      compare(at, p.order(r.from)) >= 0 && (r.through === undefined || compare(at, p.order(r.through)) <= 0),
  );
  if (!rule)
    return {
      refused: `${p.repository} ${tag} is older than ${oldest}, the oldest release whose release process kubemix read at its tag: use ${oldest} or later`,
    };
  return { assets: { repository: p.repository, tag, file: rule.file(tag), digests: [...rule.digests] } };
}

/** The digest file kubemix checks a download against: the strongest the release publishes. */
export function checkedDigest(assets: ReleaseAssets): DigestAlgorithm | undefined {
  return assets.digests.includes('sha512') ? 'sha512' : assets.digests[0];
}
