import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { artifactsFilePath, parseArtifactsFile } from '../../src/artifacts/index.js';
import { packageRoot } from '../../src/fs/package-root.js';
import { decodeParsedFile, encodeParsedFile, parsedPackageFile } from '../../src/fs/parsed-files.js';
import { playbooksDir } from '../../src/playbook/cluster-playbooks.js';
import { parseTaskFile } from '../../src/playbook/parse-playbook.js';
import { planStepFromTask } from '../../src/playbook/plan-step.js';
import { loadVersions, versionsFilePath } from '../../src/versions/versions.js';

const root = packageRoot();
const clusterDir = join(playbooksDir(), 'cluster');
const playbookFiles = readdirSync(clusterDir).filter((f) => f.endsWith('.yml'));
/** The package as if installed somewhere else. */
const elsewhere = '/opt/elsewhere/kubemix';

/** What loadClusterPlaybooks makes of a playbook file at `path` (its steps carry `path`). */
const playbookSteps = (text: string, path: string) =>
  parseTaskFile(text, path).map((task) => planStepFromTask(task));

describe("the build's parsed copies of kubemix's own YAML files", () => {
  it('give back exactly what parsing gives, every cluster playbook, artifacts.yaml and versions.yaml, wherever the package is', () => {
    expect(playbookFiles.length).toBeGreaterThan(5);
    for (const file of playbookFiles) {
      const path = join(clusterDir, file);
      const text = readFileSync(path, 'utf8');
      const entry = encodeParsedFile(text, playbookSteps(text, path), root);
      // No absolute path of the building machine is kept.
      expect(entry.json, file).not.toContain(root);
      // toStrictEqual: a key with an undefined value that JSON would drop counts as a difference.
      expect(decodeParsedFile(entry, root), file).toStrictEqual(playbookSteps(text, path));
      expect(decodeParsedFile(entry, elsewhere), file).toStrictEqual(
        playbookSteps(text, path.replace(root, elsewhere)),
      );
    }
    const text = readFileSync(artifactsFilePath(), 'utf8');
    const parsed = parseArtifactsFile(text, artifactsFilePath());
    expect(decodeParsedFile(encodeParsedFile(text, parsed, root), root)).toStrictEqual(parsed);
    const pins = loadVersions();
    const pinsText = readFileSync(versionsFilePath(), 'utf8');
    expect(decodeParsedFile(encodeParsedFile(pinsText, { ...pins }, root), root)).toStrictEqual({ ...pins });
  });

  it('are used only for the content they were made from: an edited file is parsed anew', () => {
    const path = join(clusterDir, 'install-flannel.yml');
    const text = readFileSync(path, 'utf8');
    const sentinel = [{ name: 'from the build', module: 'command', args: {} }];
    const built = new Map([
      ['playbooks/cluster/install-flannel.yml', encodeParsedFile(text, sentinel, root)],
    ]);
    expect(parsedPackageFile(path, text, () => playbookSteps(text, path), built)).toEqual(sentinel);
    const edited = `${text}\n- name: A step a user added\n  command: /bin/true\n`;
    const steps = parsedPackageFile(path, edited, () => playbookSteps(edited, path), built);
    expect(steps.at(-1)).toMatchObject({ name: 'A step a user added', module: 'command' });
    // Each use gets its own copy: a caller changing it changes no other caller's.
    const first = parsedPackageFile(path, text, () => [], built);
    first[0]!.name = 'changed';
    expect(parsedPackageFile(path, text, () => [], built)).toEqual(sentinel);
  });

  it('are never used for a file outside the package', () => {
    const path = '/tmp/not-kubemix/playbooks/cluster/install-flannel.yml';
    const built = new Map([
      ['playbooks/cluster/install-flannel.yml', encodeParsedFile('x', ['cached'], root)],
    ]);
    expect(parsedPackageFile(path, 'x', () => ['parsed'], built)).toEqual(['parsed']);
  });
});
