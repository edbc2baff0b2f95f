import { randomBytes } from 'node:crypto';
import { shQuote } from '../../quote/index.js';
import { execWhenPlain } from './exec-when-plain.js';

/** A fresh boundary token: 128 random bits, so no output contains it by chance. */
export function newToken(): string {
  return `KMX${randomBytes(16).toString('hex')}`;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What to run, as the shell builders need it. */
export interface ShellCommand {
  command: string;
  env?: Record<string, string>;
  cwd?: string;
  /** Run as this user through sudo (omit to run as the login user). */
  becomeUser?: string;
}

/**
 * The script that runs the command itself: cd, exports, then `eval` of the command text (so a
 * syntax error in it fails like `sh -c` would, after the header is out), as `exec` when the
 * command is plain words naming a program. Throws a TypeError for an environment variable name
 * the shell cannot take (a programmer mistake).
 */
export function innerScript(cmd: ShellCommand): string {
  const parts: string[] = [];
  if (cmd.cwd !== undefined) parts.push(`cd ${shQuote(cmd.cwd)} || exit 1`);
  for (const [name, value] of Object.entries(cmd.env ?? {})) {
    if (!ENV_NAME.test(name)) throw new TypeError(`env: invalid variable name ${JSON.stringify(name)}`);
    parts.push(`export ${name}=${shQuote(value)}`);
  }
  // A program named in plain words replaces the shell that evals it, one fork fewer (exec-when-plain.ts).
  parts.push(`eval ${shQuote(execWhenPlain(cmd.command))}`);
  return parts.join('\n');
}

/** `printf` of the frame header: the PID of the shell that runs it is the command's process group. */
function headerLine(token: string): string {
  return `printf '%s:pid:%s\\n' ${token} "$$"`;
}

/** Markers of the `sudo -S` exchange on stderr: sudo's prompt, and the command's first words. */
export function sudoMarkers(token: string): { prompt: string; started: string } {
  return { prompt: `${token}:password:`, started: `${token}:started` };
}

/** The body run after the header: the inner script, through sudo when becoming another user. */
function body(cmd: ShellCommand, sudo: 'n' | 'S', token?: string): string {
  const inner = innerScript(cmd);
  if (cmd.becomeUser === undefined) return inner;
  const user = shQuote(cmd.becomeUser);
  if (sudo === 'n') {
    // -n never prompts, so a host that wants a password fails at once instead of hanging.
    return `exec sudo -n -H -u ${user} -- /bin/sh -c ${shQuote(inner)}`;
  }
  // -S reads the password from stdin, but only if sudo asks: the prompt is a marker on stderr,
  // and the command announces itself on stderr before reading its own stdin. The transport
  // writes the password only after seeing the prompt, so it never reaches the command.
  const { prompt, started } = sudoMarkers(token ?? '');
  const announced = `printf '%s\\n' ${started} >&2\n${inner}`;
  return `exec sudo -S -p ${shQuote(prompt)} -H -u ${user} -- /bin/sh -c ${shQuote(announced)}`;
}

/** Sent once when a session starts: the shell reports its PID (the parent of every command it runs). */
export function sessionHello(token: string): string {
  return `printf '%s:pid:%s\\n' ${token} "$$"\n`;
}

/**
 * The text written to a long-lived `/bin/sh` to run one command with framing (see FrameReader;
 * no header: the session's PID is known from its hello). The command runs in a subshell, a fork
 * without exec, as cheap as running it directly; a kill takes the session shell's children.
 * Stdin, when given, travels base64-encoded in a here-doc with a token delimiter, so any bytes
 * are safe; otherwise the command reads /dev/null.
 */
export function sessionBlock(cmd: ShellCommand, token: string, stdin?: Buffer): string {
  const run = `(\n${body(cmd, 'n')}\n)`;
  const trailer = `printf '\\n%s:rc:%s\\n' ${token} "$?"; printf '\\n%s:end\\n' ${token} >&2\n`;
  if (stdin === undefined || stdin.length === 0) return `${run} </dev/null\n${trailer}`;
  const encoded = stdin.toString('base64').replace(/.{1,76}/g, '$&\n');
  // The here-doc sits inside { } so it ends before the multi-line subshell starts.
  return `{ base64 -d <<'${token}IN'\n${encoded}${token}IN\n} | ${run}\n${trailer}`;
}

/**
 * The command line for a fresh exec channel (the fallback): the header, then the body, with
 * stdin taken from the channel. `sudo -S` with markers when a become password may be needed.
 */
export function execCommandLine(cmd: ShellCommand, token: string, withPassword: boolean): string {
  const inner = body(cmd, withPassword ? 'S' : 'n', token);
  const run = cmd.becomeUser === undefined ? `exec /bin/sh -c ${shQuote(inner)}` : inner;
  return `${headerLine(token)}; ${run}`;
}

/**
 * Kills a process tree: stops the root and every descendant found in /proc (stopped processes
 * cannot fork or reap), then KILLs them all. With `childrenOnly` the root itself is spared: that
 * is how a session shell's current command dies while the shell lives on. Works without process
 * groups, so it covers subshells and their background children. Runs on another channel.
 */
export function killScript(pid: number, options: { asRoot?: boolean; childrenOnly?: boolean } = {}): string {
  if (!Number.isInteger(pid) || pid <= 1) throw new TypeError(`kill: bad pid ${pid}`);
  const script = [
    options.childrenOnly
      ? `all=; todo=${pid}`
      : `kill -STOP ${pid} 2>/dev/null || exit 0; all=${pid}; todo=${pid}`,
    'while [ -n "$todo" ]; do',
    '  next=',
    '  for s in /proc/[0-9]*/stat; do',
    '    read -r l <"$s" 2>/dev/null || continue',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a JS template
    '    p=${s#/proc/}; p=${p%/stat}; r=${l##*) }; set -- $r',
    '    for t in $todo; do if [ "$2" = "$t" ]; then kill -STOP "$p" 2>/dev/null; next="$next $p"; fi; done',
    '  done',
    '  all="$all $next"; todo=$next',
    'done',
    '[ -z "$all" ] || kill -KILL $all 2>/dev/null',
    'exit 0',
  ].join('\n');
  return options.asRoot ? `sudo -n /bin/sh -c ${shQuote(script)}` : script;
}
