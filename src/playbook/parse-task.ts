import { type FieldReader, isRecord, type Path } from './field-reader.js';
import { LOOP_CONTROL_KEYS } from './playbook-keywords.js';
import { taskModule } from './task-module.js';
import type { Task } from './types.js';

/** Parses one task (or handler, which may `listen`); problems go to the reader's source. */
export function parseTask(reader: FieldReader, raw: unknown, path: Path, handler: boolean): Task | undefined {
  const { source } = reader;
  if (!isRecord(raw)) {
    source.report(path, 'a task must be a mapping');
    return undefined;
  }
  const module = taskModule(reader, raw, path, handler);
  if (!module) return undefined;

  const task: Task = {
    name: reader.string(raw['name'], [...path, 'name']) ?? module.name,
    module: module.name,
    args: module.args,
    loopVar: 'item',
    notify: reader.stringList(raw['notify'], [...path, 'notify']),
    listen: reader.stringList(raw['listen'], [...path, 'listen']),
    tags: reader.stringList(raw['tags'], [...path, 'tags']),
    vars: reader.vars(raw['vars'], [...path, 'vars']),
    location: source.where(path),
  };
  const set = <K extends keyof Task>(key: K, v: Task[K] | undefined) => {
    if (v !== undefined) task[key] = v;
  };
  set('when', reader.condition(raw['when'], [...path, 'when']));
  set('until', reader.condition(raw['until'], [...path, 'until']));
  set('changedWhen', reader.condition(raw['changed_when'], [...path, 'changed_when']));
  set('failedWhen', reader.condition(raw['failed_when'], [...path, 'failed_when']));
  const register = reader.string(raw['register'], [...path, 'register']);
  if (register !== undefined && !/^[A-Za-z_]\w*$/.test(register))
    source.report([...path, 'register'], `"${register}" is not a valid variable name`);
  set('register', register);
  readLoop(reader, raw, path, task);
  const retries = reader.number(raw['retries'], [...path, 'retries']);
  set('retries', retries === undefined ? undefined : Math.trunc(retries));
  set('delay', reader.number(raw['delay'], [...path, 'delay']));
  const timeout = reader.number(raw['timeout'], [...path, 'timeout']);
  set('timeoutMs', timeout === undefined ? undefined : timeout * 1000);
  set('ignoreErrors', reader.bool(raw['ignore_errors'], [...path, 'ignore_errors']));
  set('delegateTo', reader.string(raw['delegate_to'], [...path, 'delegate_to']));
  set('runOnce', reader.bool(raw['run_once'], [...path, 'run_once']));
  set('environment', reader.environment(raw['environment'], [...path, 'environment']));
  set('become', reader.bool(raw['become'], [...path, 'become']));
  set('becomeUser', reader.string(raw['become_user'], [...path, 'become_user']));
  set('noLog', reader.bool(raw['no_log'], [...path, 'no_log']));
  set('checkMode', reader.bool(raw['check_mode'], [...path, 'check_mode']));
  set('throttle', reader.throttle(raw['throttle'], [...path, 'throttle']));
  return task;
}

/** A list of tasks; the ones that do not parse are left out (their problems are reported). */
export function parseTaskList(reader: FieldReader, value: unknown, path: Path, handler: boolean): Task[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    reader.source.report(path, 'must be a list of tasks');
    return [];
  }
  return value.flatMap((raw, i) => parseTask(reader, raw, [...path, i], handler) ?? []);
}

/** `loop` / `with_items` / `with_list` and `loop_control`, onto the task. */
function readLoop(reader: FieldReader, raw: Record<string, unknown>, path: Path, task: Task): void {
  const { source } = reader;
  const loopKey = ['loop', 'with_items', 'with_list'].filter((k) => raw[k] !== undefined);
  if (loopKey.length > 1)
    source.report([...path, loopKey[1]!], `use only one of ${loopKey.join(', ')}`, { key: true });
  if (loopKey[0]) {
    const loop = raw[loopKey[0]];
    if (!Array.isArray(loop) && typeof loop !== 'string')
      source.report([...path, loopKey[0]], 'must be a list or a {{ template }} giving a list');
    task.loop = loop;
    if (loopKey[0] === 'with_items') task.loopFlatten = true;
  }
  const control = raw['loop_control'];
  if (control === undefined || control === null) return;
  if (!isRecord(control)) {
    source.report([...path, 'loop_control'], 'must be a mapping');
    return;
  }
  for (const key of Object.keys(control)) {
    if (!LOOP_CONTROL_KEYS.includes(key))
      source.report([...path, 'loop_control', key], `unknown loop_control key "${key}"`, { key: true });
  }
  task.loopVar = reader.string(control['loop_var'], [...path, 'loop_control', 'loop_var']) ?? 'item';
  const indexVar = reader.string(control['index_var'], [...path, 'loop_control', 'index_var']);
  if (indexVar !== undefined) task.indexVar = indexVar;
}
