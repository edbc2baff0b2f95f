/**
 * `apt` artifacts (a .deb of a flat Debian repository such as pkgs.k8s.io) get their file, URL and
 * SHA-256 from the repository's own index, as apt would choose them, so nothing assumes a Debian
 * revision (pkgs.k8s.io's is not always -1.1: kubernetes/release#3623). Online from the
 * repository (`kubemix artifacts`), offline from what the lock recorded (`--check`).
 */
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { KubemixError } from '../errors/index.js';
import { choosePackage, type IndexPackage, parsePackagesIndex, releaseSha256 } from './apt-index.js';
import type { Artifact } from './list.js';
import type { LockEntry } from './lock.js';

/** A repository index that could not be read, or a package it lacks. Exit code 1. */
export class AptIndexError extends KubemixError {}

/** Index files apt reads, in the order kubemix prefers them (xz needs a decoder kubemix does not carry). */
const INDEX_FILES = ['Packages.gz', 'Packages'] as const;

/** How to fetch: the HTTP client and the URL a download really goes to (a mirror's). */
export interface IndexSource {
  client: typeof fetch;
  url: (upstream: string) => string;
}

async function getBytes(repository: string, upstream: string, source: IndexSource): Promise<Buffer> {
  const from = source.url(upstream);
  let response: Response;
  try {
    response = await source.client(from, { redirect: 'follow' });
  } catch (error) {
    const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
    throw new AptIndexError(`repository ${repository}: GET ${from} failed: ${cause}`, { cause: error });
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new AptIndexError(
      `repository ${repository}: GET ${from} answered HTTP ${response.status} ${response.statusText}`.trim(),
    );
  }
  return Buffer.from(await response.arrayBuffer());
}

/**
 * The package versions of a flat repository: InRelease names the index files with their SHA-256;
 * the first kubemix can read is fetched and checked against it. (InRelease's OpenPGP signature is
 * not checked: kubemix carries no OpenPGP implementation; the nodes' apt checks it online.)
 */
export async function readRepositoryIndex(repository: string, source: IndexSource): Promise<IndexPackage[]> {
  const base = repository.endsWith('/') ? repository : `${repository}/`;
  const listed = releaseSha256((await getBytes(repository, `${base}InRelease`, source)).toString('utf8'));
  const name = INDEX_FILES.find((f) => listed.has(f));
  if (!name)
    throw new AptIndexError(
      `repository ${repository}: its InRelease lists none of ${INDEX_FILES.join(', ')} under SHA256`,
    );
  const bytes = await getBytes(repository, `${base}${name}`, source);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (sha256 !== listed.get(name)!.sha256)
    throw new AptIndexError(
      `repository ${repository}: ${name} has sha256 ${sha256}, its InRelease says ${listed.get(name)!.sha256}`,
    );
  return parsePackagesIndex((name.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8'));
}

const wanted = (a: Artifact) => (a.apt?.release ? `${a.apt.package} ${a.apt.release}` : a.apt!.package);

/** The list with every `apt` artifact's file, URL, SHA-256 and version taken from its repository. */
export async function resolveFromRepositories(
  list: readonly Artifact[],
  source: IndexSource,
): Promise<Artifact[]> {
  const indices = new Map<string, IndexPackage[]>();
  const out: Artifact[] = [];
  for (const artifact of list) {
    if (!artifact.apt) {
      out.push(artifact);
      continue;
    }
    const { repository, package: name, release } = artifact.apt;
    if (!indices.has(repository)) indices.set(repository, await readRepositoryIndex(repository, source));
    const chosen = choosePackage(indices.get(repository)!, name, release);
    if (!chosen) {
      const has = indices
        .get(repository)!
        .filter((p) => p.package === name)
        .map((p) => p.version);
      throw new AptIndexError(
        `artifact ${artifact.name}: repository ${repository} has no ${wanted(artifact)} (it has: ${has.join(', ') || 'none'})`,
      );
    }
    const base = repository.endsWith('/') ? repository : `${repository}/`;
    out.push({
      ...artifact,
      url: `${base}${chosen.filename}`,
      file: chosen.filename.split('/').at(-1)!,
      sha256: chosen.sha256,
      version: chosen.version,
    });
  }
  return out;
}

/**
 * The list with every `apt` artifact taken from the lock (no network: `kubemix artifacts --check`):
 * the entry of the same name, if its recorded version is of the wanted release. Artifacts the lock
 * cannot answer keep an empty file name, which the check reports as missing.
 */
export function resolveFromLock(list: readonly Artifact[], lock: readonly LockEntry[]): Artifact[] {
  const byName = new Map(lock.map((e) => [e.name, e]));
  return list.map((artifact) => {
    if (!artifact.apt) return artifact;
    const entry = byName.get(artifact.name);
    const release = artifact.apt.release;
    if (!entry?.version || !entry.url || (release && !entry.version.startsWith(`${release}-`)))
      return artifact;
    return { ...artifact, url: entry.url, file: entry.file, version: entry.version };
  });
}
