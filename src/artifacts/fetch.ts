import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { KubemixError } from '../errors/index.js';
import { resolveFromRepositories } from './apt-resolve.js';
import type { Artifact } from './list.js';
import {
  type ArtifactsLock,
  hashFile,
  IMAGES_FILE,
  imagesText,
  LOCK_FORMAT,
  type LockEntry,
  readLock,
  writeLock,
} from './lock.js';
import { digestFileValue } from './publisher-digest.js';

/** What happened to one artifact during {@link fetchArtifacts}. */
export interface FetchEvent {
  artifact: Artifact;
  /** downloaded; kept (already there with the locked digest); recorded (an image tarball found); waiting (image not placed yet). */
  status: 'downloaded' | 'kept' | 'recorded' | 'waiting';
  /** The URL actually requested (the mirror's when `urlBase` is given). */
  from?: string;
  sha256?: string;
  size?: number;
}

/** Options of {@link fetchArtifacts}. */
export interface FetchArtifactsOptions {
  list: readonly Artifact[];
  /** The artifacts directory (created when missing). */
  dir: string;
  /** HTTP client (default: the global fetch). */
  fetch?: typeof fetch;
  /**
   * A mirror every download goes to instead: `https://pkgs.k8s.io/a/b.deb` is fetched from
   * `<urlBase>/pkgs.k8s.io/a/b.deb`. The lock keeps the upstream URL.
   */
  urlBase?: string;
  /** Called once per artifact. */
  onEvent?: (event: FetchEvent) => void;
}

/** A download that failed: names the artifact and the URL. Exit code 1. */
export class ArtifactFetchError extends KubemixError {}

/** The URL a download really goes to. */
export function mirrorUrl(url: string, urlBase: string | undefined): string {
  if (!urlBase) return url;
  const u = new URL(url);
  return `${urlBase.replace(/\/+$/, '')}/${u.host}${u.pathname}${u.search}`;
}

/** GET `from`, or an ArtifactFetchError naming the artifact, the URL and `what` it is. */
async function get(artifact: Artifact, from: string, client: typeof fetch, what = ''): Promise<Response> {
  let response: Response;
  try {
    response = await client(from, { redirect: 'follow' });
  } catch (error) {
    const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
    throw new ArtifactFetchError(`artifact ${artifact.name}: GET ${from}${what} failed: ${cause}`, {
      cause: error,
    });
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel().catch(() => undefined);
    throw new ArtifactFetchError(
      `artifact ${artifact.name}: GET ${from}${what} answered HTTP ${response.status} ${response.statusText}`.trim(),
    );
  }
  return response;
}

/** The digest the publisher's digest file beside the artifact gives (ArtifactFetchError when it gives none). */
async function publishedDigest(
  artifact: Artifact,
  digest: NonNullable<Artifact['digest']>,
  urlBase: string | undefined,
  client: typeof fetch,
): Promise<{ from: string; value: string }> {
  const from = mirrorUrl(digest.url, urlBase);
  const what = ` (the publisher's ${digest.algorithm} digest file)`;
  const text = await (await get(artifact, from, client, what)).text();
  const value = digestFileValue(text, digest.algorithm);
  if (value === undefined)
    throw new ArtifactFetchError(
      `artifact ${artifact.name}: ${from}${what} does not start with a ${digest.algorithm} digest: ${JSON.stringify(text.slice(0, 80))}`,
    );
  return { from, value };
}

async function download(
  artifact: Artifact,
  from: string,
  target: string,
  options: { client: typeof fetch; urlBase: string | undefined },
): Promise<{ sha256: string; size: number }> {
  const response = await get(artifact, from, options.client);
  const hash = createHash('sha256');
  const publisherHash = artifact.digest ? createHash(artifact.digest.algorithm) : undefined;
  let size = 0;
  const partial = `${target}.partial`;
  try {
    await pipeline(
      Readable.fromWeb(response.body as WebReadableStream<Uint8Array>),
      async function* (source) {
        for await (const chunk of source) {
          hash.update(chunk as Buffer);
          publisherHash?.update(chunk as Buffer);
          size += (chunk as Buffer).length;
          yield chunk;
        }
      },
      createWriteStream(partial),
    );
  } catch (error) {
    await rm(partial, { force: true });
    throw new ArtifactFetchError(
      `artifact ${artifact.name}: reading ${from} failed: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  const sha256 = hash.digest('hex');
  if (artifact.digest && publisherHash) {
    const { algorithm } = artifact.digest;
    const actual = publisherHash.digest('hex');
    const published = await publishedDigest(artifact, artifact.digest, options.urlBase, options.client).catch(
      async (error: unknown) => {
        await rm(partial, { force: true });
        throw error;
      },
    );
    if (published.value !== actual) {
      await rm(partial, { force: true });
      throw new ArtifactFetchError(
        `artifact ${artifact.name}: ${from} has ${algorithm} ${actual}, but its publisher's digest file ${published.from} says ${published.value}`,
      );
    }
  }
  if (artifact.sha256 && artifact.sha256 !== sha256) {
    await rm(partial, { force: true });
    throw new ArtifactFetchError(
      `artifact ${artifact.name}: ${from} has sha256 ${sha256}, ${artifact.apt ? "the repository's index says" : 'artifacts.yaml pins'} ${artifact.sha256}`,
    );
  }
  await rename(partial, target);
  return { sha256, size };
}

async function fileDigest(path: string): Promise<{ sha256: string; size: number } | undefined> {
  try {
    return await hashFile(path);
  } catch (error) {
    if (
      (error as NodeJS.ErrnoException).code === 'ENOENT' ||
      (error as NodeJS.ErrnoException).code === 'EISDIR'
    )
      return undefined;
    throw error;
  }
}

/**
 * Downloads every artifact with a URL into `dir` (`apt` artifacts: the file their repository's
 * index chooses, checked against the index's SHA-256; a file already there with the digest the lock
 * recorded for the same URL is kept), checking each download against its pinned SHA-256 and
 * against the digest file its publisher puts beside it (`artifact.digest`: a wrong URL or a
 * tampered asset fails here, not on the nodes), writes images.txt for the images (kubemix cannot pull
 * them; image tarballs already placed in `dir` are hashed and recorded) and artifacts.lock.json
 * with the SHA-256 of every file. Downloads run one after another; the lock is written even
 * when a download fails (what succeeded, and what an earlier run recorded for the rest).
 *
 * @throws ArtifactFetchError naming the artifact and URL of the first failed download (or of the
 *   digest file it does not match)
 */
export async function fetchArtifacts(options: FetchArtifactsOptions): Promise<ArtifactsLock> {
  const { dir, urlBase, onEvent } = options;
  const client = options.fetch ?? fetch;
  // .debs of a repository (`apt`): file, URL and SHA-256 as its index has them today.
  const list = await resolveFromRepositories(options.list, { client, url: (u) => mirrorUrl(u, urlBase) });
  await mkdir(dir, { recursive: true });
  const previous = new Map(((await readLock(dir))?.artifacts ?? []).map((e) => [e.name, e]));
  const entries: LockEntry[] = [];
  await writeFile(join(dir, IMAGES_FILE), imagesText(list));
  try {
    for (const artifact of list) {
      const path = join(dir, artifact.file);
      const base = {
        name: artifact.name,
        os: artifact.os,
        kind: artifact.kind,
        file: artifact.file,
        ...(artifact.url ? { url: artifact.url } : {}),
        ...(artifact.image ? { image: artifact.image } : {}),
        ...(artifact.windowsVersion ? { windowsVersion: artifact.windowsVersion } : {}),
        ...(artifact.role ? { role: artifact.role } : {}),
        ...(artifact.version ? { version: artifact.version } : {}),
      };
      if (artifact.url === undefined) {
        const found = await fileDigest(path);
        entries.push({ ...base, sha256: found?.sha256 ?? null, size: found?.size ?? null });
        onEvent?.({ artifact, status: found ? 'recorded' : 'waiting', ...(found ?? {}) });
        continue;
      }
      const known = previous.get(artifact.name);
      if (known?.sha256 && known.url === artifact.url && known.file === artifact.file) {
        const found = await fileDigest(path);
        if (
          found &&
          found.sha256 === known.sha256 &&
          (!artifact.sha256 || artifact.sha256 === found.sha256)
        ) {
          entries.push({ ...base, ...found });
          onEvent?.({ artifact, status: 'kept', ...found });
          continue;
        }
      }
      const from = mirrorUrl(artifact.url, urlBase);
      const got = await download(artifact, from, path, { client, urlBase });
      entries.push({ ...base, ...got });
      onEvent?.({ artifact, status: 'downloaded', from, ...got });
    }
  } finally {
    // After a failed download, what an earlier run recorded for the rest stays recorded.
    const done = new Set(entries.map((e) => e.name));
    const rest = list.filter((a) => !done.has(a.name)).map((a) => previous.get(a.name));
    await writeLock(dir, {
      format: LOCK_FORMAT,
      artifacts: [...entries, ...rest.filter((e): e is LockEntry => e !== undefined)],
    });
  }
  return { format: LOCK_FORMAT, artifacts: entries };
}
