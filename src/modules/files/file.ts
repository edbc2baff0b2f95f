import { shQuote } from '../../quote/index.js';
import {
  oneOf,
  optionalBool,
  optionalMode,
  optionalString,
  type RawArgs,
  rejectUnknown,
  requireString,
} from '../args.js';
import { changeScript, scriptChanged } from '../shell.js';
import type { Module } from '../types.js';

/** States of `file`, as in Ansible. */
export type FileState = 'file' | 'directory' | 'absent' | 'touch' | 'link';

/** Arguments of `file`. */
export interface FileArgs {
  path: string;
  state: FileState;
  /** Link target (state=link). */
  src?: string;
  mode?: string;
  owner?: string;
  group?: string;
  /** state=link: replace an existing file or directory at path. */
  force: boolean;
  /** state=directory: apply mode/owner to everything inside too. */
  recurse: boolean;
}

function attributeSteps(path: string, args: FileArgs): string[] {
  const p = shQuote(path);
  const steps: string[] = [];
  const recurse = args.recurse && args.state === 'directory' ? '-R ' : '';
  if (args.mode !== undefined) {
    const check = recurse
      ? `[ -z "$(find ${p} ! -perm ${args.mode} -print -quit)" ]`
      : `[ "$(stat -c %a ${p})" = ${args.mode} ]`;
    steps.push(`if [ -e ${p} ]; then ${check} || kmx_do chmod ${recurse}${args.mode} ${p}; fi`);
  }
  for (const [key, fmtName, fmtId] of [
    ['owner', '%U', '%u'],
    ['group', '%G', '%g'],
  ] as const) {
    const want = args[key];
    if (want === undefined) continue;
    const fmt = /^\d+$/.test(want) ? fmtId : fmtName;
    const tool = key === 'owner' ? 'chown' : 'chgrp';
    const check = recurse
      ? `[ -z "$(find ${p} ! -${key === 'owner' ? 'user' : 'group'} ${shQuote(want)} -print -quit)" ]`
      : `[ "$(stat -c ${fmt} ${p})" = ${shQuote(want)} ]`;
    steps.push(`if [ -e ${p} ]; then ${check} || kmx_do ${tool} ${recurse}${shQuote(want)} ${p}; fi`);
  }
  return steps;
}

/** The one script that brings `path` to the wanted state and reports whether it changed anything. */
export function fileScript(args: FileArgs, check: boolean): string {
  const p = shQuote(args.path);
  const fail = (msg: string) => `{ echo ${shQuote(msg)} >&2; exit 1; }`;
  const steps: string[] = [];
  switch (args.state) {
    case 'absent':
      steps.push(`if [ -e ${p} ] || [ -L ${p} ]; then kmx_do rm -rf ${p}; fi`);
      return changeScript(steps, check);
    case 'directory':
      steps.push(
        `if [ -d ${p} ]; then :; elif [ -e ${p} ]; then ${fail(`${args.path} exists and is not a directory`)}; else kmx_do mkdir -p ${p}; fi`,
      );
      break;
    case 'file':
      steps.push(`if [ ! -e ${p} ]; then ${fail(`file (${args.path}) is absent, cannot continue`)}; fi`);
      break;
    case 'touch':
      steps.push(`kmx_do touch ${p}`);
      break;
    case 'link': {
      const src = shQuote(args.src ?? '');
      const replace = args.force
        ? `kmx_do rm -rf ${p}; kmx_do ln -s ${src} ${p}`
        : fail(`refusing to convert ${args.path} to a symlink (use force: yes)`);
      steps.push(
        `if [ -L ${p} ]; then [ "$(readlink ${p})" = ${src} ] || kmx_do ln -sfn ${src} ${p}; elif [ -e ${p} ]; then ${replace}; else kmx_do ln -s ${src} ${p}; fi`,
      );
      return changeScript(steps, check);
    }
  }
  steps.push(...attributeSteps(args.path, args));
  return changeScript(steps, check);
}

/** `file`: files, directories, symlinks, removal, touch; mode and owner. Changed only when it changed something. */
export const fileModule: Module<FileArgs> = {
  name: 'file',
  os: 'linux',
  parseArgs(raw: RawArgs) {
    rejectUnknown('file', raw, [
      'path',
      'dest',
      'name',
      'state',
      'src',
      'mode',
      'owner',
      'group',
      'force',
      'recurse',
    ]);
    const path = requireString('file', { path: raw['path'] ?? raw['dest'] ?? raw['name'] }, 'path');
    const args: FileArgs = {
      path,
      state: oneOf('file', raw, 'state', ['file', 'directory', 'absent', 'touch', 'link'] as const, 'file'),
      force: optionalBool('file', raw, 'force') ?? false,
      recurse: optionalBool('file', raw, 'recurse') ?? false,
    };
    const mode = optionalMode('file', raw);
    if (mode !== undefined) args.mode = mode;
    for (const key of ['owner', 'group', 'src'] as const) {
      const value = optionalString('file', raw, key);
      if (value !== undefined) args[key] = value;
    }
    if (args.state === 'link' && !args.src) throw new TypeError('file: "src" is required with state=link');
    return args;
  },
  *run(args, context) {
    const result = yield { kind: 'exec', command: fileScript(args, context.checkMode) };
    const changed = scriptChanged(result);
    const data = { path: args.path, state: args.state };
    if (result.failed)
      return {
        changed,
        failed: true,
        msg: result.stderr.trim() || `file: exit code ${result.exitCode}`,
        data,
      };
    return { changed, failed: false, data };
  },
};
