/**
 * Upstream flannel's Documentation/kube-flannel.yml at the tag kubemix pins (the `flannel` image
 * of playbooks/versions.yaml), as scripts/flannel-manifest.sh put it in the cache (setup.sh runs
 * it): nothing is fetched at test time.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../src/manifests/index.js';
import { loadVersions } from '../../src/versions/versions.js';

/** The cache directory: `$KUBEMIX_FLANNEL_CACHE`, else `${XDG_CACHE_HOME:-~/.cache}/kubemix/flannel`. */
export function flannelCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env['KUBEMIX_FLANNEL_CACHE'];
  if (configured) return configured;
  const base = env['XDG_CACHE_HOME'] || join(env['HOME'] || homedir(), '.cache');
  return join(base, 'kubemix', 'flannel');
}

/** The flannel release tag kubemix pins: the tag of versions.yaml's `flannel` image. */
export function pinnedFlannelTag(): string {
  const image = loadVersions()['flannel'] ?? '';
  const tag = /:(v\d+\.\d+\.\d+)$/.exec(image)?.[1];
  if (!tag) throw new Error(`playbooks/versions.yaml: flannel image ${image} has no release tag vX.Y.Z`);
  return tag;
}

/** The objects of upstream's kube-flannel.yml at `tag`; throws, naming the script, when it is not cached. */
export function upstreamFlannelManifest(tag = pinnedFlannelTag()): KubeObject[] {
  const file = join(flannelCacheDir(), tag, 'kube-flannel.yml');
  if (!existsSync(file))
    throw new Error(
      `upstream flannel ${tag} Documentation/kube-flannel.yml is not in ${flannelCacheDir()}: run scripts/flannel-manifest.sh ${tag} (scripts/setup.sh fetches the tag in playbooks/versions.yaml)`,
    );
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
}
