/**
 * Quotes one word for a Windows process command line, as the Microsoft C runtime's argv parser
 * (and CommandLineToArgvW) reads it back: bare when it has no whitespace and no `"`, else in
 * double quotes with `"` escaped as `\"` and the backslashes before a `"` or the closing quote
 * doubled ("Parsing C++ command-line arguments", learn.microsoft.com/cpp/cpp/main-function-command-line-args;
 * the same rules as ansible.windows' `quote` filter without a shell, plugins/plugin_utils/_quote.py
 * `quote_c`). This is not a shell quote: cmd.exe and PowerShell interpret the line first.
 */
export function quoteWindowsArg(word: string): string {
  if (word !== '' && !/[\s"]/.test(word)) return word;
  let out = '"';
  let backslashes = 0;
  for (const ch of word) {
    if (ch === '\\') {
      backslashes++;
      continue;
    }
    if (ch === '"') out += `${'\\'.repeat(backslashes * 2 + 1)}"`;
    else out += `${'\\'.repeat(backslashes)}${ch}`;
    backslashes = 0;
  }
  return `${out}${'\\'.repeat(backslashes * 2)}"`;
}
