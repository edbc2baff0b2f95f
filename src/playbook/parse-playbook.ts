import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { THROTTLE_NOT_INTEGER, throttleValue } from '../engine/throttle.js';
import { SpecError } from '../errors/index.js';
import { findModule } from '../modules/registry.js';
import { isTemplate } from '../template/index.js';
import { parseFreeForm } from './free-form.js';
import type { Condition, Play, Playbook, Task } from './types.js';
import { YamlSource } from './yaml-source.js';

type Path = Array<string | number>;
const isRecord = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);

const TASK_KEYWORDS = new Set([
  'name',
  'when',
  'register',
  'loop',
  'with_items',
  'with_list',
  'loop_control',
  'retries',
  'until',
  'delay',
  'changed_when',
  'failed_when',
  'ignore_errors',
  'delegate_to',
  'run_once',
  'environment',
  'become',
  'become_user',
  'notify',
  'tags',
  'args',
  'vars',
  'no_log',
  'check_mode',
  'timeout',
  'listen',
  'throttle',
]);
/** Ansible keywords kubemix knows but does not implement: named in the error instead of "unknown". */
const UNSUPPORTED_TASK = new Set([
  'block',
  'rescue',
  'always',
  'include_tasks',
  'import_tasks',
  'include_role',
  'import_role',
  'include_vars',
  'async',
  'poll',
  'local_action',
  'action',
  'delegate_facts',
  'with_dict',
  'with_fileglob',
  'with_nested',
  'with_together',
  'with_sequence',
  'with_subelements',
  'with_first_found',
  'become_method',
  'become_flags',
  'connection',
  'remote_user',
  'any_errors_fatal',
  'ignore_unreachable',
  'module_defaults',
  'collections',
  'debugger',
  'diff',
]);
const PLAY_KEYWORDS = new Set([
  'name',
  'hosts',
  'vars',
  'vars_files',
  'tasks',
  'pre_tasks',
  'post_tasks',
  'handlers',
  'become',
  'become_user',
  'gather_facts',
  'tags',
  'environment',
  'ignore_errors',
  'throttle',
]);
const UNSUPPORTED_PLAY = new Set([
  'serial',
  'roles',
  'strategy',
  'connection',
  'remote_user',
  'max_fail_percentage',
  'any_errors_fatal',
  'import_playbook',
  'include_playbook',
  'vars_prompt',
  'order',
  'force_handlers',
  'become_method',
  'module_defaults',
  'collections',
  'run_once',
  'no_log',
  'check_mode',
  'fact_path',
  'gather_subset',
  'gather_timeout',
]);
/** Modules whose free-form string is a command line, with these options pulled out of it. */
const FREE_FORM: Record<string, readonly string[]> = {
  command: ['chdir', 'creates', 'removes', 'stdin', 'stdin_add_newline'],
  shell: ['chdir', 'creates', 'removes', 'executable', 'stdin', 'stdin_add_newline'],
  raw: ['executable'],
  script: ['chdir', 'creates', 'removes', 'executable'],
  win_shell: ['chdir', 'creates', 'removes', 'executable', 'stdin', 'no_profile'],
  win_command: ['chdir', 'creates', 'removes', 'stdin'],
};
const LOOP_CONTROL_KEYS = ['loop_var', 'index_var', 'label', 'extended', 'pause'];

function containsTemplate(value: unknown): boolean {
  if (typeof value === 'string') return isTemplate(value);
  if (Array.isArray(value)) return value.some(containsTemplate);
  if (isRecord(value))
    return Object.entries(value).some(([k, v]) => containsTemplate(k) || containsTemplate(v));
  return false;
}

class PlaybookParser {
  constructor(private readonly source: YamlSource) {}

  private bool(value: unknown, path: Path): boolean | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'boolean') return value;
    this.source.report(path, 'must be a boolean (yes/no, true/false)');
    return undefined;
  }

  private string(value: unknown, path: Path): string | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string' && value !== '') return value;
    if (typeof value === 'number') return String(value);
    this.source.report(path, 'must be a non-empty string');
    return undefined;
  }

  private stringList(value: unknown, path: Path): string[] {
    if (value === undefined || value === null) return [];
    if (typeof value === 'string')
      return value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    if (typeof value === 'number') return [String(value)];
    if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number'))
      return value.map(String);
    this.source.report(path, 'must be a string or a list of strings');
    return [];
  }

  private condition(value: unknown, path: Path): Condition | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string' || typeof value === 'boolean') return value;
    if (typeof value === 'number') return String(value);
    if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'boolean'))
      return value as Array<string | boolean>;
    this.source.report(path, 'must be a condition (an expression string, a boolean, or a list of them)');
    return undefined;
  }

  private number(value: unknown, path: Path): number | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
    if (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim())) return Number(value);
    this.source.report(path, 'must be a number >= 0');
    return undefined;
  }

  /** `throttle`: an integer (0 = no limit) or a template Ansible renders per host. */
  private throttle(value: unknown, path: Path): number | string | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string' && isTemplate(value)) return value;
    const n = throttleValue(value);
    if (n !== undefined) return n;
    this.source.report(path, `must be an integer (or a {{ template }}): ${THROTTLE_NOT_INTEGER}`);
    return undefined;
  }

  private vars(value: unknown, path: Path): Record<string, unknown> {
    if (value === undefined || value === null) return {};
    if (isRecord(value)) {
      for (const key of Object.keys(value)) {
        if (!/^[A-Za-z_]\w*$/.test(key))
          this.source.report([...path, key], `"${key}" is not a valid variable name`, { key: true });
      }
      return value;
    }
    this.source.report(path, 'must be a mapping of variable names to values');
    return {};
  }

  private environment(value: unknown, path: Path): Record<string, unknown> | string | undefined {
    if (value === undefined || value === null) return undefined;
    if (isRecord(value) || (typeof value === 'string' && isTemplate(value))) return value;
    this.source.report(path, 'must be a mapping of environment variables (or a {{ template }})');
    return undefined;
  }

  task(raw: unknown, path: Path, handler: boolean): Task | undefined {
    if (!isRecord(raw)) {
      this.source.report(path, 'a task must be a mapping');
      return undefined;
    }
    const moduleKeys: string[] = [];
    for (const key of Object.keys(raw)) {
      if (TASK_KEYWORDS.has(key)) {
        if (key === 'listen' && !handler)
          this.source.report([...path, key], '"listen" is only valid on handlers', { key: true });
        continue;
      }
      if (UNSUPPORTED_TASK.has(key)) {
        this.source.report([...path, key], `task keyword "${key}" is not supported by kubemix`, {
          key: true,
        });
        continue;
      }
      if (findModule(key)) moduleKeys.push(key);
      else this.source.report([...path, key], `unknown task keyword or module "${key}"`, { key: true });
    }
    if (moduleKeys.length > 1) {
      this.source.report(
        [...path, moduleKeys[1]!],
        `a task runs one module, found ${moduleKeys.join(', ')}`,
        { key: true },
      );
      return undefined;
    }
    const moduleKey = moduleKeys[0];
    if (!moduleKey) {
      if (Object.keys(raw).every((k) => TASK_KEYWORDS.has(k)))
        this.source.report(path, 'task has no module (e.g. command:, copy:, debug:)');
      return undefined;
    }
    const module = findModule(moduleKey)!;
    const modulePath = [...path, moduleKey];
    let args: Record<string, unknown> = {};
    const value = raw[moduleKey];
    if (typeof value === 'string' || typeof value === 'number') {
      const text = String(value);
      const rawKeys = FREE_FORM[module.name];
      const parsed = parseFreeForm(text, rawKeys);
      if (!rawKeys && parsed.bare.length > 0) {
        this.source.report(
          modulePath,
          `module "${module.name}" takes key=value arguments, not free-form text ("${parsed.bare[0]}")`,
        );
      }
      args = parsed.args;
    } else if (isRecord(value)) args = { ...value };
    else if (value !== null && value !== undefined)
      this.source.report(modulePath, 'module arguments must be a mapping or a key=value string');
    if (raw['args'] !== undefined) {
      if (isRecord(raw['args'])) args = { ...args, ...raw['args'] };
      else this.source.report([...path, 'args'], 'must be a mapping');
    }
    if (!containsTemplate(args)) {
      try {
        module.parseArgs(args);
      } catch (error) {
        this.source.report(modulePath, (error as Error).message);
      }
    }

    const task: Task = {
      name: this.string(raw['name'], [...path, 'name']) ?? module.name,
      module: module.name,
      args,
      loopVar: 'item',
      notify: this.stringList(raw['notify'], [...path, 'notify']),
      listen: this.stringList(raw['listen'], [...path, 'listen']),
      tags: this.stringList(raw['tags'], [...path, 'tags']),
      vars: this.vars(raw['vars'], [...path, 'vars']),
      location: this.source.where(path),
    };
    const set = <K extends keyof Task>(key: K, v: Task[K] | undefined) => {
      if (v !== undefined) task[key] = v;
    };
    set('when', this.condition(raw['when'], [...path, 'when']));
    set('until', this.condition(raw['until'], [...path, 'until']));
    set('changedWhen', this.condition(raw['changed_when'], [...path, 'changed_when']));
    set('failedWhen', this.condition(raw['failed_when'], [...path, 'failed_when']));
    const register = this.string(raw['register'], [...path, 'register']);
    if (register !== undefined && !/^[A-Za-z_]\w*$/.test(register))
      this.source.report([...path, 'register'], `"${register}" is not a valid variable name`);
    set('register', register);
    const loopKey = ['loop', 'with_items', 'with_list'].filter((k) => raw[k] !== undefined);
    if (loopKey.length > 1)
      this.source.report([...path, loopKey[1]!], `use only one of ${loopKey.join(', ')}`, { key: true });
    if (loopKey[0]) {
      const loop = raw[loopKey[0]];
      if (!Array.isArray(loop) && typeof loop !== 'string')
        this.source.report([...path, loopKey[0]], 'must be a list or a {{ template }} giving a list');
      task.loop = loop;
      if (loopKey[0] === 'with_items') task.loopFlatten = true;
    }
    const control = raw['loop_control'];
    if (control !== undefined && control !== null) {
      if (!isRecord(control)) this.source.report([...path, 'loop_control'], 'must be a mapping');
      else {
        for (const key of Object.keys(control)) {
          if (!LOOP_CONTROL_KEYS.includes(key))
            this.source.report([...path, 'loop_control', key], `unknown loop_control key "${key}"`, {
              key: true,
            });
        }
        task.loopVar = this.string(control['loop_var'], [...path, 'loop_control', 'loop_var']) ?? 'item';
        set('indexVar', this.string(control['index_var'], [...path, 'loop_control', 'index_var']));
      }
    }
    const retries = this.number(raw['retries'], [...path, 'retries']);
    set('retries', retries === undefined ? undefined : Math.trunc(retries));
    set('delay', this.number(raw['delay'], [...path, 'delay']));
    const timeout = this.number(raw['timeout'], [...path, 'timeout']);
    set('timeoutMs', timeout === undefined ? undefined : timeout * 1000);
    set('ignoreErrors', this.bool(raw['ignore_errors'], [...path, 'ignore_errors']));
    set('delegateTo', this.string(raw['delegate_to'], [...path, 'delegate_to']));
    set('runOnce', this.bool(raw['run_once'], [...path, 'run_once']));
    set('environment', this.environment(raw['environment'], [...path, 'environment']));
    set('become', this.bool(raw['become'], [...path, 'become']));
    set('becomeUser', this.string(raw['become_user'], [...path, 'become_user']));
    set('noLog', this.bool(raw['no_log'], [...path, 'no_log']));
    set('checkMode', this.bool(raw['check_mode'], [...path, 'check_mode']));
    set('throttle', this.throttle(raw['throttle'], [...path, 'throttle']));
    return task;
  }

  taskList(value: unknown, path: Path, handler: boolean): Task[] {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) {
      this.source.report(path, 'must be a list of tasks');
      return [];
    }
    return value.flatMap((raw, i) => this.task(raw, [...path, i], handler) ?? []);
  }

  play(raw: unknown, path: Path): Play | undefined {
    if (!isRecord(raw)) {
      this.source.report(path, 'a play must be a mapping');
      return undefined;
    }
    for (const key of Object.keys(raw)) {
      if (PLAY_KEYWORDS.has(key)) continue;
      if (UNSUPPORTED_PLAY.has(key))
        this.source.report([...path, key], `play keyword "${key}" is not supported by kubemix`, {
          key: true,
        });
      else this.source.report([...path, key], `unknown play keyword "${key}"`, { key: true });
    }
    const hostsValue = raw['hosts'];
    const hosts = Array.isArray(hostsValue)
      ? hostsValue.map(String).join(',')
      : this.string(hostsValue, [...path, 'hosts']);
    if (hosts === undefined)
      this.source.report(path, 'a play needs "hosts" (a host pattern such as all or a group name)');
    const varsFiles = this.stringList(raw['vars_files'], [...path, 'vars_files']);
    const play: Play = {
      name: this.string(raw['name'], [...path, 'name']) ?? hosts ?? '',
      hosts: hosts ?? '',
      vars: this.vars(raw['vars'], [...path, 'vars']),
      varsFiles,
      sections: [
        this.taskList(raw['pre_tasks'], [...path, 'pre_tasks'], false),
        this.taskList(raw['tasks'], [...path, 'tasks'], false),
        this.taskList(raw['post_tasks'], [...path, 'post_tasks'], false),
      ],
      handlers: this.taskList(raw['handlers'], [...path, 'handlers'], true),
      gatherFacts: this.bool(raw['gather_facts'], [...path, 'gather_facts']) ?? false,
      tags: this.stringList(raw['tags'], [...path, 'tags']),
      location: this.source.where(path),
    };
    const become = this.bool(raw['become'], [...path, 'become']);
    if (become !== undefined) play.become = become;
    const becomeUser = this.string(raw['become_user'], [...path, 'become_user']);
    if (becomeUser !== undefined) play.becomeUser = becomeUser;
    const environment = this.environment(raw['environment'], [...path, 'environment']);
    if (environment !== undefined) play.environment = environment;
    const ignoreErrors = this.bool(raw['ignore_errors'], [...path, 'ignore_errors']);
    if (ignoreErrors !== undefined) play.ignoreErrors = ignoreErrors;
    const throttle = this.throttle(raw['throttle'], [...path, 'throttle']);
    if (throttle !== undefined) play.throttle = throttle;
    const handlerNames = new Set(play.handlers.flatMap((h) => [h.name, ...h.listen]));
    play.sections.flat().forEach((task) => {
      for (const name of task.notify) {
        if (!handlerNames.has(name) && !isTemplate(name)) {
          const loc = task.location;
          this.source.issues.push({
            file: this.source.file,
            path: `${path.join('.')}.notify`,
            ...(loc ? { line: loc.line, column: loc.column } : {}),
            message: `task "${task.name}" notifies "${name}", but the play has no such handler`,
          });
        }
      }
    });
    return play;
  }
}

/**
 * Parses an Ansible playbook (a list of plays). Every problem is reported at once as a
 * SpecError with file, YAML path and line:column; unknown keywords and modules are named.
 * `gather_facts` is accepted but kubemix gathers no facts (it defaults to false).
 */
export function parsePlaybook(text: string, file = 'playbook.yml'): Playbook {
  const source = new YamlSource(file, text);
  const parser = new PlaybookParser(source);
  const root = source.issues.length > 0 ? undefined : source.value();
  const plays: Play[] = [];
  if (source.issues.length === 0) {
    if (!Array.isArray(root)) source.report([], 'a playbook must be a list of plays');
    else
      root.forEach((raw, i) => {
        const play = parser.play(raw, [i]);
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
  const parser = new PlaybookParser(source);
  let tasks: Task[] = [];
  if (source.issues.length === 0) {
    const root = source.value();
    if (!Array.isArray(root)) source.report([], 'a task file must be a list of tasks');
    else tasks = parser.taskList(root, [], false);
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
