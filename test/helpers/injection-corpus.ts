/**
 * Values that try to run a command wherever they are spliced: POSIX shells, PowerShell, cmd.exe,
 * nunjucks templates. Each one, if it were ever interpreted instead of passed as text, creates
 * (or names) the `canary` file, so a test proves "nothing ran" by checking that file never
 * appears. `name` says what the payload tries.
 */
export interface Payload {
  name: string;
  value: string;
}

/** The corpus for one canary path (an absolute POSIX path without quotes or spaces). */
export function injectionCorpus(canary: string): Payload[] {
  const touch = `touch ${canary}`;
  const psTouch = `New-Item -ItemType File -Path ${canary}`;
  return [
    { name: 'command substitution', value: `x$(${touch})` },
    { name: 'backticks', value: `x\`${touch}\`` },
    { name: 'semicolon', value: `x; ${touch}` },
    { name: 'pipe', value: `x | ${touch}` },
    { name: 'and-and', value: `x && ${touch}` },
    { name: 'newline', value: `x\n${touch}` },
    { name: 'carriage return and newline', value: `x\r\n${touch}` },
    { name: 'single quote breakout', value: `x'; ${touch}; '` },
    { name: 'double quote breakout', value: `x"; ${touch}; "` },
    { name: 'typographic single quotes (PowerShell)', value: `x\u2019; ${psTouch}; \u2018` },
    { name: 'low and reversed single quotes (PowerShell)', value: `x\u201a; ${psTouch}; \u201b` },
    { name: 'typographic double quotes (PowerShell)', value: `x\u201d; ${psTouch}; \u201c` },
    { name: 'PowerShell subexpression', value: `x$(${psTouch})` },
    { name: 'braced variable', value: `x\${IFS}${touch}` },
    // biome-ignore lint/suspicious/noTemplateCurlyInString: PowerShell's ${...}, not a JS template
    { name: 'PowerShell braced variable', value: '${env:ComSpec}' },
    { name: 'variable', value: '$HOME' },
    { name: 'redirection', value: `x > ${canary}` },
    { name: 'null byte', value: `x\0; ${touch}` },
    { name: 'leading dash', value: '--help' },
    { name: 'leading dash, short options', value: '-rf' },
    { name: 'glob', value: '/*' },
    { name: 'glob classes', value: '[a-z]?*' },
    { name: 'tilde', value: '~root' },
    { name: 'backslash', value: 'x\\' },
    { name: 'cmd.exe variable and operators', value: `%ComSpec% & ${touch} ^& x` },
    { name: 'nunjucks expression', value: '{{ 6 * 7 }}' },
    {
      name: 'nunjucks escape to Function',
      value: `{{ range.constructor("return process.getBuiltinModule('child_process').execSync('${touch}')")() }}`,
    },
  ];
}
