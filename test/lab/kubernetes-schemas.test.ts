import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  MissingSchemasError,
  openApiSpecPath,
  SCHEMA_CACHE_ENV,
  schemaCacheDir,
} from '../../scripts/lab/kubernetes-schemas.js';
import { OLDEST_TESTED_KUBERNETES } from '../helpers/kubernetes-test-versions.js';
import { testTempDir } from '../helpers/temp.js';

// Where the lab and the manifest checks find the offline Kubernetes schemas (scripts/kubernetes-schemas.sh).
const saved = process.env[SCHEMA_CACHE_ENV];
afterEach(() => {
  if (saved === undefined) delete process.env[SCHEMA_CACHE_ENV];
  else process.env[SCHEMA_CACHE_ENV] = saved;
});

async function cacheWith(...versions: string[]): Promise<string> {
  const dir = await testTempDir('schema-cache');
  for (const v of versions) {
    await mkdir(join(dir, `v${v}`), { recursive: true });
    await writeFile(join(dir, `v${v}`, 'swagger.json'), '{"definitions": {}}');
  }
  process.env[SCHEMA_CACHE_ENV] = dir;
  return dir;
}

describe('the OpenAPI spec of a Kubernetes release', () => {
  it('is the exact release when cached, else the newest cached patch of its minor (patches change no API)', async () => {
    const dir = await cacheWith('1.36.1', '1.36.3', '1.35.4');
    expect(openApiSpecPath('v1.36.1')).toBe(join(dir, 'v1.36.1', 'swagger.json'));
    expect(openApiSpecPath('1.36.0')).toBe(join(dir, 'v1.36.3', 'swagger.json'));
    expect(openApiSpecPath('1.35.9')).toBe(join(dir, 'v1.35.4', 'swagger.json'));
  });

  it('is refused with the command that builds it when no release of its minor is cached', async () => {
    const dir = await cacheWith('1.36.1');
    expect(() => openApiSpecPath('1.34.2')).toThrow(MissingSchemasError);
    expect(() => openApiSpecPath('1.34.2')).toThrow(
      `the OpenAPI spec of Kubernetes v1.34.2 is not in ${dir}: run scripts/kubernetes-schemas.sh 1.34.2`,
    );
    expect(() => openApiSpecPath('latest')).toThrow('not a Kubernetes release version (x.y.z): "latest"');
  });

  it('lives under $KUBEMIX_SCHEMA_CACHE, else under the XDG cache directory', () => {
    expect(schemaCacheDir({ [SCHEMA_CACHE_ENV]: '/x' })).toBe('/x');
    expect(schemaCacheDir({ XDG_CACHE_HOME: '/c', HOME: '/h' })).toBe('/c/kubemix/kubernetes-schemas');
    expect(schemaCacheDir({ HOME: '/h' })).toBe('/h/.cache/kubemix/kubernetes-schemas');
  });
});

describe('the schemas scripts/setup.sh builds', () => {
  it("include the oldest supported minor's release the tests install", async () => {
    const setup = await readFile(new URL('../../scripts/setup.sh', import.meta.url), 'utf8');
    expect(setup).toMatch(
      new RegExp(`^OLDEST_TESTED_KUBERNETES=${OLDEST_TESTED_KUBERNETES.replaceAll('.', '\\.')}$`, 'm'),
    );
    expect(setup).toMatch(/^bash scripts\/kubernetes-schemas\.sh "\$OLDEST_TESTED_KUBERNETES"$/m);
  });
});
