/**
 * Where the offline Kubernetes schemas live that scripts/kubernetes-schemas.sh builds (setup.sh
 * runs it): the OpenAPI spec of each Kubernetes release, its strict JSON schemas in
 * kubeconform's layout, and kubeconform itself. The tests' manifest checks and the lab's API
 * server stand-in read them; nothing is fetched at test time.
 */
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The environment variable that moves the cache (the lab's stand-in wrappers set it). */
export const SCHEMA_CACHE_ENV = 'KUBEMIX_SCHEMA_CACHE';

/** The cache directory: `$KUBEMIX_SCHEMA_CACHE`, else `${XDG_CACHE_HOME:-~/.cache}/kubemix/kubernetes-schemas`. */
export function schemaCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env[SCHEMA_CACHE_ENV];
  if (configured) return configured;
  const base = env['XDG_CACHE_HOME'] || join(env['HOME'] || homedir(), '.cache');
  return join(base, 'kubemix', 'kubernetes-schemas');
}

/** `1.31.2` from `v1.31.2` or `1.31.2`; throws on anything that is not a release number. */
export function releaseVersion(version: string): string {
  const bare = version.replace(/^v/, '');
  if (!/^\d+\.\d+\.\d+$/.test(bare))
    throw new TypeError(`not a Kubernetes release version (x.y.z): ${JSON.stringify(version)}`);
  return bare;
}

/** Thrown when the cache lacks what a check needs; says how to build it. */
export class MissingSchemasError extends Error {
  constructor(what: string, version: string) {
    super(
      `${what} of Kubernetes v${version} is not in ${schemaCacheDir()}: run scripts/kubernetes-schemas.sh ${version} (scripts/setup.sh builds the version in playbooks/versions.yaml)`,
    );
  }
}

/**
 * The OpenAPI v2 spec (`api/openapi-spec/swagger.json`) of a Kubernetes release, else of the newest
 * cached patch release of the same minor (patch releases change no API: Kubernetes patch releases
 * carry fixes only, https://kubernetes.io/releases/patch-releases/); throws when neither is built.
 */
export function openApiSpecPath(version: string): string {
  const release = releaseVersion(version);
  const cache = schemaCacheDir();
  const exact = join(cache, `v${release}`, 'swagger.json');
  if (existsSync(exact)) return exact;
  const minor = release.split('.').slice(0, 2).join('.');
  const patches = (existsSync(cache) ? readdirSync(cache) : [])
    .map((entry) => /^v(\d+\.\d+)\.(\d+)$/.exec(entry))
    .filter((m): m is RegExpExecArray => m?.[1] === minor)
    .filter((m) => existsSync(join(cache, m[0], 'swagger.json')))
    .sort((a, b) => Number(b[2]) - Number(a[2]));
  if (patches[0]) return join(cache, patches[0][0], 'swagger.json');
  throw new MissingSchemasError('the OpenAPI spec', release);
}

/** kubeconform's `-schema-location` template for the strict schemas of the cache. */
export function strictSchemaLocation(): string {
  return join(
    schemaCacheDir(),
    '{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}',
    '{{ .ResourceKind }}{{ .KindSuffix }}.json',
  );
}

/** The kubeconform binary, after checking the strict schemas of `version` are there; throws otherwise. */
export function kubeconformFor(version: string): string {
  const release = releaseVersion(version);
  const binary = join(schemaCacheDir(), 'bin', 'kubeconform');
  if (!existsSync(binary)) throw new MissingSchemasError('kubeconform (for the schemas)', release);
  if (!existsSync(join(schemaCacheDir(), `v${release}-standalone-strict`, 'pod-v1.json')))
    throw new MissingSchemasError('the strict JSON schemas', release);
  return binary;
}
