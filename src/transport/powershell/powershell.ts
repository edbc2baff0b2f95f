/**
 * PowerShell command lines and wrapper scripts both Windows transports run (WinRM, and SSH with
 * PowerShell as the remote shell). Everything a remote host executes on our behalf is built here,
 * so a test server can recognise the same forms.
 */

import { psQuote } from '../../quote/index.js';

/** cmd.exe refuses command lines longer than 8191 characters; stay below with some margin. */
export const MAX_COMMAND_LINE = 8000;

/** The program and fixed switches every PowerShell invocation uses. */
export const POWERSHELL_PREFIX =
  'powershell.exe -NoProfile -NonInteractive -ExecutionPolicy Bypass -EncodedCommand';

/** Base64 of the UTF-16LE script, as -EncodedCommand wants it. */
export function encodePowerShell(script: string): string {
  return Buffer.from(script, 'utf16le').toString('base64');
}

/** First line of the stdin bootstrap; the test server recognises scripts by these markers. */
export const BOOTSTRAP_MARKER = '# kubemix stdin-bootstrap v1';

/**
 * A small script that reads one base64 (UTF-8) line from stdin, runs it as a script block and
 * passes its exit code on. Whatever follows that line on stdin stays readable by the script.
 */
export const STDIN_BOOTSTRAP = [
  BOOTSTRAP_MARKER,
  "$ErrorActionPreference = 'Stop'",
  '$kmLine = [Console]::In.ReadLine()',
  '$kmScript = [Text.Encoding]::UTF8.GetString([Convert]::FromBase64String($kmLine))',
  '& ([ScriptBlock]::Create($kmScript))',
  'exit $LASTEXITCODE',
].join('\n');

/**
 * Wraps a user script: stop on errors, UTF-8 output, environment and working directory set,
 * terminating errors written to stderr with exit code 1, otherwise the last native exit code.
 */
export function wrapScript(
  script: string,
  options: { env?: Record<string, string>; cwd?: string } = {},
): string {
  const lines = [
    '# kubemix exec-wrapper v1',
    "$ErrorActionPreference = 'Stop'",
    "$ProgressPreference = 'SilentlyContinue'",
    '[Console]::OutputEncoding = New-Object System.Text.UTF8Encoding $false',
  ];
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new TypeError(`invalid environment variable name: ${name}`);
    lines.push(`$env:${name} = ${psQuote(value)}`);
  }
  if (options.cwd !== undefined) lines.push(`Set-Location -LiteralPath ${psQuote(options.cwd)}`);
  lines.push(
    'try {',
    '# kubemix user-script begin',
    script,
    '# kubemix user-script end',
    '} catch {',
    '  [Console]::Error.WriteLine(($_ | Out-String).Trim())',
    '  exit 1',
    '}',
    'exit $LASTEXITCODE',
  );
  return lines.join('\n');
}

/** How to start a script: the command line, and stdin to send before the caller's own stdin. */
export interface PowerShellInvocation {
  commandLine: string;
  /** Bytes that must precede the caller's stdin (the script itself, for the bootstrap). */
  stdinPrefix?: Buffer;
}

/** Short scripts go inline with -EncodedCommand; long ones through the stdin bootstrap. */
export function powershellInvocation(script: string): PowerShellInvocation {
  const inline = `${POWERSHELL_PREFIX} ${encodePowerShell(script)}`;
  if (inline.length <= MAX_COMMAND_LINE) return { commandLine: inline };
  return {
    commandLine: `${POWERSHELL_PREFIX} ${encodePowerShell(STDIN_BOOTSTRAP)}`,
    stdinPrefix: Buffer.from(`${Buffer.from(script, 'utf8').toString('base64')}\n`, 'latin1'),
  };
}

/** Marker of the upload script (far side of put). */
export const PUT_MARKER = '# kubemix put-file v1';
/** Marker of the download script (far side of get). */
export const GET_MARKER = '# kubemix get-file v1';

/**
 * Far side of put: reads base64 lines from stdin into a temporary file, checks its SHA-256
 * with Get-FileHash against `sha256`, then moves it into place and prints the hash.
 */
export function putFileScript(remotePath: string, sha256: string): string {
  return [
    PUT_MARKER,
    "$ErrorActionPreference = 'Stop'",
    `$kmPath = ${psQuote(remotePath)}`,
    `$kmExpected = ${psQuote(sha256)}`,
    '$kmDir = Split-Path -Parent $kmPath',
    'if ($kmDir -and -not (Test-Path -LiteralPath $kmDir)) { New-Item -ItemType Directory -Force -Path $kmDir | Out-Null }',
    '$kmTmp = "$kmPath.kubemix-part"',
    '$kmFile = [IO.File]::Create($kmTmp)',
    'try {',
    '  while ($null -ne ($kmLine = [Console]::In.ReadLine())) {',
    '    if ($kmLine.Length -gt 0) { $kmBytes = [Convert]::FromBase64String($kmLine); $kmFile.Write($kmBytes, 0, $kmBytes.Length) }',
    '  }',
    '} finally { $kmFile.Dispose() }',
    '$kmHash = (Get-FileHash -LiteralPath $kmTmp -Algorithm SHA256).Hash.ToLowerInvariant()',
    'if ($kmHash -ne $kmExpected) {',
    '  Remove-Item -LiteralPath $kmTmp -Force',
    '  [Console]::Error.WriteLine("SHA-256 mismatch after upload: expected $kmExpected, got $kmHash")',
    '  exit 2',
    '}',
    'Move-Item -LiteralPath $kmTmp -Destination $kmPath -Force',
    '[Console]::Out.WriteLine($kmHash)',
    'exit 0',
  ].join('\n');
}

/**
 * Far side of get: prints the file's SHA-256 (Get-FileHash) on the first line, then the file
 * as base64 lines of at most `chunkBytes` bytes each.
 */
export function getFileScript(remotePath: string, chunkBytes = 262_144): string {
  return [
    GET_MARKER,
    "$ErrorActionPreference = 'Stop'",
    `$kmPath = ${psQuote(remotePath)}`,
    `$kmChunk = ${chunkBytes}`,
    '$kmHash = (Get-FileHash -LiteralPath $kmPath -Algorithm SHA256).Hash.ToLowerInvariant()',
    '[Console]::Out.WriteLine($kmHash)',
    '$kmFile = [IO.File]::OpenRead($kmPath)',
    'try {',
    '  $kmBuf = New-Object byte[] $kmChunk',
    '  while (($kmRead = $kmFile.Read($kmBuf, 0, $kmBuf.Length)) -gt 0) { [Console]::Out.WriteLine([Convert]::ToBase64String($kmBuf, 0, $kmRead)) }',
    '} finally { $kmFile.Dispose() }',
    'exit 0',
  ].join('\n');
}
