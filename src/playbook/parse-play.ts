import { isTemplate } from '../template/index.js';
import type { FieldReader, Path } from './field-reader.js';
import { isRecord } from './field-reader.js';
import { parseTaskList } from './parse-task.js';
import { PLAY_KEYWORDS, UNSUPPORTED_PLAY } from './playbook-keywords.js';
import type { Play } from './types.js';

/** Parses one play of a playbook; problems go to the reader's source. */
export function parsePlay(reader: FieldReader, raw: unknown, path: Path): Play | undefined {
  const { source } = reader;
  if (!isRecord(raw)) {
    source.report(path, 'a play must be a mapping');
    return undefined;
  }
  for (const key of Object.keys(raw)) {
    if (PLAY_KEYWORDS.has(key)) continue;
    if (UNSUPPORTED_PLAY.has(key))
      source.report([...path, key], `play keyword "${key}" is not supported by kubemix`, { key: true });
    else source.report([...path, key], `unknown play keyword "${key}"`, { key: true });
  }
  const hostsValue = raw['hosts'];
  const hosts = Array.isArray(hostsValue)
    ? hostsValue.map(String).join(',')
    : reader.string(hostsValue, [...path, 'hosts']);
  if (hosts === undefined)
    source.report(path, 'a play needs "hosts" (a host pattern such as all or a group name)');
  const varsFiles = reader.stringList(raw['vars_files'], [...path, 'vars_files']);
  const play: Play = {
    name: reader.string(raw['name'], [...path, 'name']) ?? hosts ?? '',
    hosts: hosts ?? '',
    vars: reader.vars(raw['vars'], [...path, 'vars']),
    varsFiles,
    sections: [
      parseTaskList(reader, raw['pre_tasks'], [...path, 'pre_tasks'], false),
      parseTaskList(reader, raw['tasks'], [...path, 'tasks'], false),
      parseTaskList(reader, raw['post_tasks'], [...path, 'post_tasks'], false),
    ],
    handlers: parseTaskList(reader, raw['handlers'], [...path, 'handlers'], true),
    gatherFacts: reader.bool(raw['gather_facts'], [...path, 'gather_facts']) ?? false,
    tags: reader.stringList(raw['tags'], [...path, 'tags']),
    location: source.where(path),
  };
  const become = reader.bool(raw['become'], [...path, 'become']);
  if (become !== undefined) play.become = become;
  const becomeUser = reader.string(raw['become_user'], [...path, 'become_user']);
  if (becomeUser !== undefined) play.becomeUser = becomeUser;
  const environment = reader.environment(raw['environment'], [...path, 'environment']);
  if (environment !== undefined) play.environment = environment;
  const ignoreErrors = reader.bool(raw['ignore_errors'], [...path, 'ignore_errors']);
  if (ignoreErrors !== undefined) play.ignoreErrors = ignoreErrors;
  const throttle = reader.throttle(raw['throttle'], [...path, 'throttle']);
  if (throttle !== undefined) play.throttle = throttle;
  checkNotifiedHandlers(reader, play, path);
  return play;
}

/** Every non-templated `notify` must name a handler (or a `listen` topic) of the play. */
function checkNotifiedHandlers(reader: FieldReader, play: Play, path: Path): void {
  const { source } = reader;
  const handlerNames = new Set(play.handlers.flatMap((h) => [h.name, ...h.listen]));
  for (const task of play.sections.flat()) {
    for (const name of task.notify) {
      if (!handlerNames.has(name) && !isTemplate(name)) {
        const loc = task.location;
        source.issues.push({
          file: source.file,
          path: `${path.join('.')}.notify`,
          ...(loc ? { line: loc.line, column: loc.column } : {}),
          message: `task "${task.name}" notifies "${name}", but the play has no such handler`,
        });
      }
    }
  }
}
