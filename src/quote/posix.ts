/**
 * Quotes a value as one literal word for a POSIX shell (sh, dash, bash, busybox ash): always
 * single quotes, with each `'` written as `'\''` (close, an escaped quote, reopen). Inside single
 * quotes a POSIX shell gives no character a special meaning (POSIX.1-2017, Shell Command
 * Language, 2.2.2 "Single-Quotes"), so `$(...)`, backticks, `;`, `|`, `&&`, newlines, globs and
 * `~` all arrive as written, wherever the word stands (a bare `a=b` would be an assignment in
 * command position; `'a=b'` never is). Unlike Python's shlex.quote, safe words are quoted too.
 *
 * Quoting keeps a value one word; it cannot stop a program from reading a word that starts with
 * `-` as an option: put `--` before operands where the program allows it.
 *
 * @throws TypeError when the value contains a NUL character: no shell word (a C string) can
 *   hold one, and shells drop or truncate it silently.
 */
export function shQuote(value: string): string {
  if (value.includes('\0')) throw new TypeError('a NUL character cannot be passed to a shell');
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

const SHLEX_SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * {@link shQuote} for an argument, leaving a non-empty word of only `A-Z a-z 0-9 _ @ % + = : , . / -`
 * bare, as Python's shlex.quote does (Lib/shlex.py `_find_unsafe`; Ansible's `quote` filter calls
 * it): no shell gives those characters a meaning inside an argument, and logs stay readable.
 * Only for arguments: in command position a bare `a=b` would be an assignment.
 */
export function shQuoteArgument(value: string): string {
  if (!value.includes('\0') && SHLEX_SAFE.test(value)) return value;
  return shQuote(value);
}
