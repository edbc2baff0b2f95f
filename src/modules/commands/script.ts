import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { shQuote } from '../../quote/index.js';
import { resolveLocalFile } from '../../template/local-files.js';
import { optionalString, type RawArgs, rejectUnknown } from '../args.js';
import { checkModeSkip } from '../shell.js';
import type { Module } from '../types.js';
import { commandOutcome, guardCommand } from './command.js';

/** Arguments of `script`: a local script plus its arguments, copied to the host and run there. */
export interface ScriptArgs {
  /** Local script path followed by its arguments (free form). */
  cmd: string;
  chdir?: string;
  creates?: string;
  removes?: string;
  executable?: string;
}

/** Splits `path arg1 arg2` into the path and the raw argument text. */
function splitCommand(cmd: string): { path: string; rest: string } {
  const match = /^\s*(?:'([^']*)'|"([^"]*)"|(\S+))(.*)$/s.exec(cmd);
  if (!match) throw new TypeError('script: a script path is required');
  return { path: match[1] ?? match[2] ?? match[3]!, rest: match[4]!.trim() };
}

/** `script`: copies a local script to the host (mode 0700), runs it with its arguments, removes it. */
export const scriptModule: Module<ScriptArgs> = {
  name: 'script',
  os: 'linux',
  parseArgs(raw: RawArgs) {
    rejectUnknown('script', raw, ['cmd', '_raw_params', 'chdir', 'creates', 'removes', 'executable']);
    const cmd = raw['cmd'] ?? raw['_raw_params'];
    if (typeof cmd !== 'string' || cmd.trim() === '')
      throw new TypeError('script: a script path is required ("cmd" or free form)');
    const args: ScriptArgs = { cmd };
    for (const key of ['chdir', 'creates', 'removes', 'executable'] as const) {
      const value = optionalString('script', raw, key);
      if (value !== undefined) args[key] = value;
    }
    return args;
  },
  *run(args, context) {
    if (context.checkMode) return checkModeSkip();
    const { path, rest } = splitCommand(args.cmd);
    const local = resolveLocalFile(path, context.vars, 'files');
    let content: Buffer;
    try {
      content = readFileSync(local);
    } catch (error) {
      return {
        changed: false,
        failed: true,
        msg: `script: cannot read local script ${local}: ${(error as Error).message}`,
      };
    }
    const tmpDir =
      typeof context.vars['ansible_remote_tmp'] === 'string' ? context.vars['ansible_remote_tmp'] : '/tmp';
    const digest = createHash('sha256').update(content).digest('hex').slice(0, 16);
    // A random part per run, as Ansible's remote tmp names have: hosts that share a filesystem
    // (test hosts on one machine, other runs with the same host names) never remove each other's copy.
    const unique = randomBytes(6).toString('hex');
    const remote = `${tmpDir}/.kubemix-script-${context.host.name}-${digest}-${unique}-${basename(local)}`;
    const put = yield { kind: 'put', remotePath: remote, content, mode: 0o700 };
    if (put.failed)
      return {
        changed: false,
        failed: true,
        msg: `script: copying ${local} to ${remote} failed: ${put.stderr.trim()}`,
      };
    const runner = args.executable ? `${shQuote(args.executable)} ` : '';
    const body = `${runner}${shQuote(remote)}${rest ? ` ${rest}` : ''}; kmx_rc=$?; rm -f ${shQuote(remote)}; exit $kmx_rc`;
    const action: { kind: 'exec'; command: string; cwd?: string } = {
      kind: 'exec',
      command: guardCommand(args, body),
    };
    if (args.chdir !== undefined) action.cwd = args.chdir;
    const result = yield action;
    return commandOutcome(result);
  },
};
