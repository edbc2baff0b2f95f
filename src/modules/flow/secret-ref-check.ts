import { shQuote } from '../../quote/index.js';
import { optionalString, type RawArgs, rejectUnknown } from '../args.js';
import type { Module, ModuleRun } from '../types.js';

/** Exactly one of `env` (a variable name) or `file` (a path; `~/` is the user's home). */
export type SecretRefCheckArgs = { env: string } | { file: string };

/** A path for the shell: `~/x` becomes `"$HOME"/'x'` so it expands but stays quoted. */
const shellPath = (path: string) =>
  path.startsWith('~/') ? `"$HOME"/${shQuote(path.slice(2))}` : shQuote(path);

/**
 * `secret_ref_check`: a secret reference resolves on this machine (the variable is set, the file
 * is readable) without ever reading the secret: `printenv` output goes to /dev/null, files are
 * only tested. Changes nothing.
 */
export const secretRefCheckModule: Module<SecretRefCheckArgs> = {
  name: 'secret_ref_check',
  os: 'linux',
  parseArgs(raw: RawArgs) {
    rejectUnknown('secret_ref_check', raw, ['env', 'file']);
    const env = optionalString('secret_ref_check', raw, 'env');
    const file = optionalString('secret_ref_check', raw, 'file');
    if ((env === undefined) === (file === undefined))
      throw new TypeError('secret_ref_check: give exactly one of env or file');
    return env !== undefined ? { env } : { file: file! };
  },
  *run(args): ModuleRun {
    // printf, not echo (dash's echo reads backslashes); `--` so a name like `-x` is no option.
    const fail = (message: string) => `{ printf '%s\\n' ${shQuote(message)} >&2; exit 1; }`;
    const command =
      'env' in args
        ? `printenv -- ${shQuote(args.env)} >/dev/null || ${fail(`environment variable ${args.env} is not set`)}`
        : `test -r ${shellPath(args.file)} || ${fail(`cannot read ${args.file}`)}`;
    const result = yield { kind: 'exec', command };
    return { changed: false, failed: result.failed, ...(result.failed ? { msg: result.stderr.trim() } : {}) };
  },
};
