import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KubemixError } from '../errors/index.js';
import { resolveFromLock } from './apt-resolve.js';
import type { Artifact, ArtifactKind, ArtifactOs } from './list.js';

/** File name of the lock in an artifacts directory. */
export const LOCK_FILE = 'artifacts.lock.json';
/** File name of the image list in an artifacts directory. */
export const IMAGES_FILE = 'images.txt';
/** Format tag of the lock. */
export const LOCK_FORMAT = 'kubemix-artifacts/v1';

/** One file of the directory, as recorded. */
export interface LockEntry {
  name: string;
  os: ArtifactOs;
  kind: ArtifactKind;
  file: string;
  /** Upstream URL (downloads). */
  url?: string;
  /** Image reference (images). */
  image?: string;
  /** Only Windows nodes of this Windows Server version import it (per-version workload images). */
  windowsVersion?: string;
  /** Only the control-plane nodes copy and import it (kubeadm's control-plane images). */
  role?: 'control-plane';
  /** The Debian version a repository's index gave an `apt` artifact. */
  version?: string;
  /** SHA-256 of the file; null for an image tarball not placed yet. */
  sha256: string | null;
  size: number | null;
}

/** artifacts.lock.json: what the directory holds and the digest of every file. */
export interface ArtifactsLock {
  format: typeof LOCK_FORMAT;
  artifacts: LockEntry[];
}

/** SHA-256 (hex) and size of a file, streamed. */
export async function hashFile(path: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), size };
}

/** Reads DIR/artifacts.lock.json, or undefined when there is none. */
export async function readLock(dir: string): Promise<ArtifactsLock | undefined> {
  const path = join(dir, LOCK_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let lock: ArtifactsLock;
  try {
    lock = JSON.parse(text) as ArtifactsLock;
  } catch {
    throw new KubemixError(`${path}: not valid JSON`, { exitCode: 2 });
  }
  if (lock?.format !== LOCK_FORMAT || !Array.isArray(lock.artifacts))
    throw new KubemixError(`${path}: not a kubemix artifacts lock (format ${LOCK_FORMAT})`, { exitCode: 2 });
  return lock;
}

/** Writes the lock atomically (temp file + rename). */
export async function writeLock(dir: string, lock: ArtifactsLock): Promise<void> {
  const path = join(dir, LOCK_FILE);
  await writeFile(`${path}.tmp`, `${JSON.stringify(lock, null, 2)}\n`);
  await rename(`${path}.tmp`, path);
}

/** images.txt: `REFERENCE FILE` per line, with how to make the files. */
export function imagesText(artifacts: readonly Artifact[]): string {
  const images = artifacts.filter((a) => a.kind === 'image');
  const lines = [
    '# Container images of this cluster: REFERENCE FILE per line (written by kubemix artifacts).',
    '# kubemix cannot pull images. On a connected machine, for each line:',
    '#   ctr images pull --platform PLATFORM REFERENCE && ctr images export --platform PLATFORM FILE REFERENCE',
    '#   (PLATFORM: linux/amd64 or windows/amd64 as the section says), or docker pull + docker save -o FILE,',
    '# then put FILE into this directory and run kubemix artifacts SPEC --dir DIR again to record its digest.',
  ];
  for (const os of ['linux', 'windows'] as const) {
    const some = images.filter((a) => a.os === os);
    if (some.length === 0) continue;
    lines.push(`# ${os}/amd64`);
    for (const a of some) lines.push(`${a.image} ${a.file}`);
  }
  return `${lines.join('\n')}\n`;
}

/** One thing wrong with an artifacts directory. */
export interface ArtifactProblem {
  name: string;
  file: string;
  problem: 'missing' | 'digest mismatch' | 'not in lock' | 'different source';
  detail: string;
}

const sourceOf = (a: { url?: string | undefined; image?: string | undefined }) => a.url ?? a.image ?? '';

async function exists(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * Verifies a directory against its lock for the artifacts a cluster needs: every file present,
 * recorded in the lock for the same URL/image, with the recorded (and any pinned) SHA-256.
 * Returns the problems (empty: the directory is good).
 */
export async function checkArtifacts(options: {
  list: readonly Artifact[];
  dir: string;
}): Promise<ArtifactProblem[]> {
  const lock = await readLock(options.dir);
  const byName = new Map((lock?.artifacts ?? []).map((e) => [e.name, e]));
  const problems: ArtifactProblem[] = [];
  for (const artifact of resolveFromLock(options.list, lock?.artifacts ?? [])) {
    const path = join(options.dir, artifact.file);
    const base = { name: artifact.name, file: artifact.file || artifact.name };
    if (artifact.file === '' || !(await exists(path))) {
      problems.push({
        ...base,
        problem: 'missing',
        detail:
          artifact.kind === 'image'
            ? `image ${artifact.image}: export it to ${artifact.file} (see ${IMAGES_FILE})`
            : artifact.file === ''
              ? `no ${artifact.apt?.package} ${artifact.apt?.release ?? ''} from ${artifact.apt?.repository} recorded: run kubemix artifacts SPEC --dir DIR`.replace(
                  '  ',
                  ' ',
                )
              : `download ${artifact.url}`,
      });
      continue;
    }
    const entry = byName.get(artifact.name);
    if (!entry || entry.sha256 === null) {
      problems.push({ ...base, problem: 'not in lock', detail: `no digest recorded in ${LOCK_FILE}` });
      continue;
    }
    if (entry.file !== artifact.file || sourceOf(entry) !== sourceOf(artifact)) {
      problems.push({
        ...base,
        problem: 'different source',
        detail: `the lock has ${entry.file} from ${sourceOf(entry)}, this cluster needs ${sourceOf(artifact)}`,
      });
      continue;
    }
    const { sha256 } = await hashFile(path);
    const expected = artifact.sha256 ?? entry.sha256;
    if (sha256 !== entry.sha256 || sha256 !== expected)
      problems.push({
        ...base,
        problem: 'digest mismatch',
        detail: `sha256 ${sha256}, expected ${expected}`,
      });
  }
  return problems;
}

/** Error of `kubemix artifacts --check`: every bad file named. Exit code 2. */
export class ArtifactsCheckError extends KubemixError {
  readonly problems: ArtifactProblem[];
  constructor(dir: string, problems: ArtifactProblem[]) {
    super(
      `artifacts directory ${dir}: ${problems.length} problem${problems.length === 1 ? '' : 's'}: ${problems
        .map((p) => `${p.file} ${p.problem} (${p.detail})`)
        .join('; ')}`,
      { exitCode: 2 },
    );
    this.problems = problems;
  }
}
