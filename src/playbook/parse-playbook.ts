import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { SpecError } from '../errors/index.js';
import { FieldReader } from './field-reader.js';
import { parsePlay } from './parse-play.js';
import { parseTaskList } from './parse-task.js';
import type { Play, Playbook, Task } from './types.js';
import { YamlSource } from './yaml-source.js';

/**
 * Parses an Ansible playbook (a list of plays). Every problem is reported at once as a
 * SpecError with file, YAML path and line:column; unknown keywords and modules are named.
 * `gather_facts` is accepted but kubemix gathers no facts (it defaults to false).
 */
export function parsePlaybook(text: string, file = 'playbook.yml'): Playbook {
  const source = new YamlSource(file, text);
  const reader = new FieldReader(source);
  const root = source.issues.length > 0 ? undefined : source.value();
  const plays: Play[] = [];
  if (source.issues.length === 0) {
    if (!Array.isArray(root)) source.report([], 'a playbook must be a list of plays');
    else
      root.forEach((raw, i) => {
        const play = parsePlay(reader, raw, [i]);
        if (play) plays.push(play);
      });
  }
  if (source.issues.length > 0) throw new SpecError(source.issues);
  const path = file === 'playbook.yml' ? '' : resolve(file);
  return { path, dir: path ? dirname(path) : process.cwd(), plays };
}

/**
 * Parses a task file: a YAML list of tasks, like a role's tasks/main.yml. The cluster plan's
 * playbooks (playbooks/cluster/*.yml) are task files; every problem is reported at once.
 */
export function parseTaskFile(text: string, file: string): Task[] {
  const source = new YamlSource(file, text);
  const reader = new FieldReader(source);
  let tasks: Task[] = [];
  if (source.issues.length === 0) {
    const root = source.value();
    if (!Array.isArray(root)) source.report([], 'a task file must be a list of tasks');
    else tasks = parseTaskList(reader, root, [], false);
  }
  if (source.issues.length > 0) throw new SpecError(source.issues);
  return tasks;
}

/** Reads and parses a playbook file. */
export async function loadPlaybook(path: string): Promise<Playbook> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new SpecError([
      { file: path, path: '', message: `cannot read playbook: ${(error as Error).message}` },
    ]);
  }
  const playbook = parsePlaybook(text, path);
  return { ...playbook, path: resolve(path), dir: dirname(resolve(path)) };
}
