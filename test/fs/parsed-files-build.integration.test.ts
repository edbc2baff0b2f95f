import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { artifactsFilePath } from '../../src/artifacts/index.js';
import { packageRoot } from '../../src/fs/package-root.js';
import { PARSED_FILES, type ParsedFileEntry } from '../../src/fs/parsed-files.js';
import { playbooksDir } from '../../src/playbook/cluster-playbooks.js';
import { versionsFilePath } from '../../src/versions/versions.js';

// The integration tier runs after `npm run build` (package.json's test scripts): the build must
// have recorded every file the commands read at start-up, from the files as they are now.
describe('dist/parsed-files.json, as `npm run build` writes it', () => {
  it('holds every cluster playbook, artifacts.yaml and versions.yaml, made from their current content', () => {
    const root = packageRoot();
    const built = JSON.parse(readFileSync(join(root, PARSED_FILES), 'utf8')) as Record<
      string,
      ParsedFileEntry
    >;
    const clusterDir = join(playbooksDir(), 'cluster');
    const files = [
      ...readdirSync(clusterDir)
        .filter((f) => f.endsWith('.yml'))
        .map((f) => join(clusterDir, f)),
      artifactsFilePath(),
      versionsFilePath(),
    ];
    expect(Object.keys(built).sort()).toEqual(files.map((f) => relative(root, f)).sort());
    for (const file of files)
      expect(built[relative(root, file)]?.sha256, file).toBe(
        createHash('sha256').update(readFileSync(file, 'utf8')).digest('hex'),
      );
  });
});
