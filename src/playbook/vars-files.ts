import { readFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { SpecError } from '../errors/index.js';
import { renderValue } from '../template/index.js';
import type { Play, Playbook } from './types.js';
import { mergeVars } from './vars.js';
import { ANSIBLE_YAML } from './yaml-source.js';

/**
 * A play's `vars_files`, merged in order. The file names are templates rendered with the play's
 * vars and the extra vars (the only variables there are before any host is chosen); relative
 * names resolve against the playbook's directory.
 */
export async function loadVarsFiles(
  play: Play,
  playbook: Playbook,
  extraVars: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const file of play.varsFiles) {
    const scope = mergeVars([
      { values: { playbook_dir: playbook.dir } },
      { values: play.vars, templated: true },
      { values: extraVars, templated: true },
    ]);
    const name = renderValue(file, scope);
    const path = isAbsolute(name) ? name : join(playbook.dir, name);
    let parsed: unknown;
    try {
      parsed = parseYaml(await readFile(path, 'utf8'), ANSIBLE_YAML);
    } catch (error) {
      throw new SpecError([
        {
          file: playbook.path || 'playbook',
          path: `vars_files`,
          message: `cannot load ${path}: ${(error as Error).message.split('\n')[0]}`,
        },
      ]);
    }
    if (parsed === null || parsed === undefined) continue;
    if (typeof parsed !== 'object' || Array.isArray(parsed))
      throw new SpecError([{ file: path, path: '', message: 'a vars file must be a mapping' }]);
    Object.assign(out, parsed);
  }
  return out;
}
