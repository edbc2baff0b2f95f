/**
 * A command of plain words (`/bin/true`, `kubectl get nodes`, shQuote'd argv) run through `exec`,
 * so the subshell that runs it becomes the program instead of forking it.
 *
 * Why: each command runs as `( eval 'cmd' )` in the session shell (shell-script.ts). A subshell
 * whose last command is a program execs it without another fork, but not through `eval`: dash
 * forks again for the command `eval` runs. Measured with dash here, 2,000 runs of `/bin/true`:
 * 0.55 ms each directly, 0.65 in a subshell, 0.87 in a subshell through eval. That extra fork
 * was most of what kubemix paid per task over the persistent-shell floor (#25 item 2). `eval` stays
 * (a syntax error in the command must fail that command, not end the session shell); `eval
 * 'exec cmd'` runs the program in place.
 *
 * Only for commands whose meaning `exec` cannot change: words of literal text alone (no
 * expansion, redirection, operator, glob, comment or assignment), whose first word is not one
 * of the shells' builtins or keywords (`exec cd /x` would look for a program named cd). What
 * changes: a program that is not installed is reported as `exec: name: not found` (still exit
 * 127) instead of `name: not found`.
 */

/** One word of literal text: safe bare characters, '...' runs, and shQuote's `\'`. */
const WORD = String.raw`(?:[A-Za-z0-9_@%+=:,./-]|'[^']*'|\\')+`;
const PLAIN = new RegExp(`^ *(${WORD})(?: +${WORD})* *$`);

/**
 * The builtins and reserved words of dash (0.5.12, src/builtins.def.in and the parser's keyword
 * table) and bash (5.2, `enable` and `compgen -k`): as a first word they are not programs.
 */
const NOT_PROGRAMS = new Set([
  ...['.', ':', '[', 'alias', 'bg', 'break', 'cd', 'chdir', 'command', 'continue', 'echo', 'eval'],
  ...['exec', 'exit', 'export', 'false', 'fg', 'getopts', 'hash', 'jobs', 'kill', 'local', 'printf'],
  ...['pwd', 'read', 'readonly', 'return', 'set', 'shift', 'test', 'times', 'trap', 'true', 'type'],
  ...['ulimit', 'umask', 'unalias', 'unset', 'wait'],
  ...['source', 'declare', 'typeset', 'let', 'shopt', 'enable', 'builtin', 'caller', 'compgen'],
  ...['complete', 'compopt', 'dirs', 'disown', 'help', 'history', 'logout', 'mapfile', 'popd'],
  ...['pushd', 'readarray', 'suspend', 'fc', 'bind'],
  ...['!', '{', '}', 'case', 'do', 'done', 'elif', 'else', 'esac', 'fi', 'for', 'if', 'in', 'then'],
  ...['until', 'while', 'function', 'select', 'time', 'coproc', '[[', ']]'],
]);

/** A word's literal value: quotes removed, `\'` as a quote. */
function literal(word: string): string {
  return word.replace(/'([^']*)'|\\'/g, (_, quoted: string | undefined) => quoted ?? "'");
}

/** `exec <command>` when the command is plain words naming a program; the command unchanged otherwise. */
export function execWhenPlain(command: string): string {
  const match = PLAIN.exec(command);
  if (!match) return command;
  const program = literal(match[1]!);
  if (program === '' || program.includes('=') || program.startsWith('-') || NOT_PROGRAMS.has(program))
    return command;
  return `exec ${command}`;
}
