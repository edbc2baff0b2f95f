import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { MANIFEST_NAMES, manifestTemplateDir } from '../../src/manifests/index.js';
import { formatPowerShellErrors, parsePowerShell } from '../helpers/parse-powershell.js';

// Static checks over the files the package ships (playbooks/) and its scripts: every plain
// PowerShell file parses and every YAML file parses. Templates (*.j2) are checked after
// rendering, by the manifest tests.

const root = fileURLToPath(new URL('../../', import.meta.url));

function filesUnder(dir: string, test: (name: string) => boolean): string[] {
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(join(root, dir), { withFileTypes: true, recursive: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => e.isFile() && test(e.name))
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .sort();
}

describe('shipped manifest templates', () => {
  it('every template in playbooks/templates/manifests is a known manifest, so none escapes the render checks', () => {
    const templates = readdirSync(manifestTemplateDir()).filter((name) => name.endsWith('.j2'));
    expect(templates.map((name) => name.replace(/\.yaml\.j2$/, '')).sort()).toEqual(
      [...MANIFEST_NAMES].sort(),
    );
  });
});

const powerShellFiles = [
  ...filesUnder('playbooks', (n) => /\.(ps1|psm1)$/i.test(n)),
  ...filesUnder('scripts', (n) => /\.(ps1|psm1)$/i.test(n)),
];

// No suite while no plain .ps1 file is shipped (vitest rejects an empty suite).
if (powerShellFiles.length > 0) {
  describe('shipped PowerShell files parse', () => {
    for (const file of powerShellFiles) {
      it(file, async () => {
        const errors = await parsePowerShell(readFileSync(join(root, file), 'utf8'));
        expect(errors, formatPowerShellErrors(file, errors)).toEqual([]);
      });
    }
  });
}

describe('shipped YAML files parse', () => {
  const files = filesUnder('playbooks', (n) => /\.ya?ml$/i.test(n));

  it('finds the versions file among them', () => {
    expect(files).toContain('playbooks/versions.yaml');
  });

  for (const file of files) {
    it(file, () => {
      const problems = parseAllDocuments(readFileSync(join(root, file), 'utf8')).flatMap((doc) =>
        [...doc.errors, ...doc.warnings].map((e) => `${file}: ${e.message}`),
      );
      expect(problems).toEqual([]);
    });
  }
});
