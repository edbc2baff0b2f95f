/**
 * A flat Debian repository's indices (what `deb URI /` lines point apt at: pkgs.k8s.io's
 * `core:/stable:/v1.MM/deb/`), read as apt reads them: `InRelease` lists the index files with their
 * SHA-256 (Debian RepositoryFormat, "Release files"), `Packages` holds one paragraph per package
 * version with its `Filename`, `Size` and `SHA256` (RepositoryFormat, "Binary Packages Indices").
 * Pure: parsing and choosing only; src/artifacts/fetch.ts downloads.
 */
import { compareDebianVersions } from './debian-version.js';

/** One package version of a `Packages` index. */
export interface IndexPackage {
  package: string;
  version: string;
  /** Path of the .deb relative to the repository URI. */
  filename: string;
  size: number;
  sha256: string;
}

/** deb822 paragraphs (`Field: value`, continuation lines start with a space) as field maps. */
function paragraphs(text: string): Map<string, string>[] {
  const out: Map<string, string>[] = [];
  let current = new Map<string, string>();
  let last = '';
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      if (current.size > 0) out.push(current);
      current = new Map();
      continue;
    }
    if (/^\s/.test(line) && last) {
      current.set(last, `${current.get(last)}\n${line.trim()}`);
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    last = line.slice(0, colon);
    current.set(last, line.slice(colon + 1).trim());
  }
  if (current.size > 0) out.push(current);
  return out;
}

/** The index files a Release / InRelease lists under `SHA256:`, by path. */
export function releaseSha256(release: string): Map<string, { sha256: string; size: number }> {
  // InRelease is clear-signed: the signed text sits between the PGP armour lines.
  const body = release
    .replace(/^-----BEGIN PGP SIGNED MESSAGE-----\n(?:Hash:.*\n)*\n/, '')
    .split('\n-----BEGIN PGP SIGNATURE-----')[0]!;
  const files = new Map<string, { sha256: string; size: number }>();
  for (const p of paragraphs(body)) {
    for (const line of (p.get('SHA256') ?? '').split('\n')) {
      const [sha256, size, path] = line.trim().split(/\s+/);
      if (sha256 && size && path) files.set(path, { sha256: sha256.toLowerCase(), size: Number(size) });
    }
  }
  return files;
}

/** The package versions of a `Packages` index (paragraphs without the fields kubemix needs are skipped). */
export function parsePackagesIndex(text: string): IndexPackage[] {
  return paragraphs(text).flatMap((p) => {
    const [name, version, filename, size, sha256] = ['Package', 'Version', 'Filename', 'Size', 'SHA256'].map(
      (f) => p.get(f),
    );
    if (!name || !version || !filename || !size || !sha256) return [];
    return [{ package: name, version, filename, size: Number(size), sha256: sha256.toLowerCase() }];
  });
}

/**
 * The version apt would pick: for a release (`1.37.2`, or `1.37.0~rc.1`), the newest Debian
 * revision of it (`1.37.2-2.1` over `1.37.2-1.1`); without one, the newest version of the package
 * (what apt installs as a dependency). Undefined when the index has none.
 */
export function choosePackage(
  index: readonly IndexPackage[],
  name: string,
  release?: string,
): IndexPackage | undefined {
  return index
    .filter((p) => p.package === name && (!release || p.version.startsWith(`${release}-`)))
    .sort((a, b) => compareDebianVersions(b.version, a.version))[0];
}
