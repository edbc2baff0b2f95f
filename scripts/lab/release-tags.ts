/**
 * What the Go module proxy records about the release tags the lab's release models cite
 * (fixtures/lab/windows-release-models.ts): the `.info` of `<module>@<tag>`, whose Origin names the
 * tag's commit (https://go.dev/ref/mod#goproxy-protocol, `$base/$module/@v/$version.info`).
 * scripts/setup.sh records them into the cache (record-release-tags.ts); the tests read them, so
 * nothing is fetched at test time.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** The environment variable that moves the cache. */
export const RELEASE_TAG_CACHE_ENV = 'KUBEMIX_RELEASE_TAG_CACHE';

/** The cache directory: `$KUBEMIX_RELEASE_TAG_CACHE`, else `${XDG_CACHE_HOME:-~/.cache}/kubemix/release-tags`. */
export function releaseTagCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env[RELEASE_TAG_CACHE_ENV];
  if (configured) return configured;
  const base = env['XDG_CACHE_HOME'] || join(env['HOME'] || homedir(), '.cache');
  return join(base, 'kubemix', 'release-tags');
}

/** What the proxy answered for one module version. */
export interface ReleaseTagRecord {
  module: string;
  tag: string;
  /** The HTTP status of the `.info` request (the proxy answers 403/404/410 for what it does not serve). */
  status: number;
  /** The `.info` Origin, when the proxy recorded one: the commit and the ref it came from. */
  origin?: { hash: string; ref: string };
}

/** The module path as the proxy spells it: each upper-case letter as `!` + its lower case. */
export function escapeModulePath(module: string): string {
  return module.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);
}

function recordPath(module: string, tag: string): string {
  return join(releaseTagCacheDir(), escapeModulePath(module), `${tag}.json`);
}

/** The recorded answer for `module@tag`, or undefined when setup has not recorded it. */
export function readReleaseTagRecord(module: string, tag: string): ReleaseTagRecord | undefined {
  const path = recordPath(module, tag);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as ReleaseTagRecord) : undefined;
}

/** Asks the proxy for `module@tag`'s `.info` and records the answer (a refusal is an answer too). */
export async function recordReleaseTag(
  module: string,
  tag: string,
  client: typeof fetch = fetch,
): Promise<ReleaseTagRecord> {
  const response = await client(`https://proxy.golang.org/${escapeModulePath(module)}/@v/${tag}.info`);
  const record: ReleaseTagRecord = { module, tag, status: response.status };
  if (response.ok) {
    const info = (await response.json()) as { Origin?: { Hash?: string; Ref?: string } };
    if (info.Origin?.Hash && info.Origin.Ref)
      record.origin = { hash: info.Origin.Hash, ref: info.Origin.Ref };
  } else await response.body?.cancel();
  const path = recordPath(module, tag);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(`${path}.partial`, `${JSON.stringify(record, null, 2)}\n`);
  renameSync(`${path}.partial`, path);
  return record;
}
