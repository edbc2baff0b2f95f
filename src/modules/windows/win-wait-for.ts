import { oneOf, optionalString, type RawArgs } from '../args.js';
import type { Module } from '../types.js';
import { parseWaitForArgs, type WaitTarget } from '../wait-for-args.js';
import { moduleScript, outcomeFromResult } from './script.js';

/** Arguments of `win_wait_for`, in seconds like Ansible. */
export interface WinWaitForArgs {
  host: string;
  port?: number;
  path?: string;
  /** present/started: exists or accepts connections; absent/stopped: gone or refusing. */
  state: 'present' | 'started' | 'absent' | 'stopped';
  /** A regular expression the file must contain (with a path and state present). */
  regex?: string;
  timeout: number;
  delay: number;
  sleep: number;
  connectTimeout: number;
}

/**
 * The PowerShell of win_wait_for: the Windows host itself polls (TcpClient with a connect
 * timeout, or Test-Path / Select-String) every `sleep` seconds until the state holds or
 * `timeout` passes.
 */
export function winWaitForScript(args: WinWaitForArgs): string {
  const header: Record<string, unknown> = {
    host: args.host,
    state: args.state,
    timeout: args.timeout,
    delay: args.delay,
    sleep: args.sleep,
    connect_timeout: args.connectTimeout,
  };
  if (args.port !== undefined) header['port'] = args.port;
  if (args.path !== undefined) header['path'] = args.path;
  if (args.regex !== undefined) header['regex'] = args.regex;
  return moduleScript({
    module: 'win_wait_for',
    header,
    vars: {
      kmHost: args.host,
      kmPort: args.port ?? null,
      kmPath: args.path ?? null,
      kmState: args.state,
      kmRegex: args.regex ?? null,
      kmTimeout: args.timeout,
      kmDelay: args.delay,
      kmSleep: args.sleep,
      kmConnectTimeout: args.connectTimeout,
    },
    initial: { elapsed: 0, wait_attempts: 0 },
    body: [
      'function KmReady {',
      '  if ($null -ne $kmPort) {',
      '    $kmOpen = $false',
      '    $kmClient = New-Object System.Net.Sockets.TcpClient',
      '    try {',
      '      $kmAsync = $kmClient.BeginConnect($kmHost, $kmPort, $null, $null)',
      '      if ($kmAsync.AsyncWaitHandle.WaitOne([int]($kmConnectTimeout * 1000)) -and $kmClient.Connected) { $kmOpen = $true }',
      '    } catch { $kmOpen = $false } finally { $kmClient.Close() }',
      "    if ($kmState -eq 'started' -or $kmState -eq 'present') { return $kmOpen } else { return -not $kmOpen }",
      '  }',
      '  $kmExists = Test-Path -LiteralPath $kmPath',
      "  if ($kmState -eq 'absent' -or $kmState -eq 'stopped') { return -not $kmExists }",
      '  if (-not $kmExists) { return $false }',
      '  if ($null -eq $kmRegex) { return $true }',
      '  return [bool](Select-String -LiteralPath $kmPath -Pattern $kmRegex -Quiet)',
      '}',
      '$kmStart = Get-Date',
      'if ($kmDelay -gt 0) { Start-Sleep -Milliseconds ([int]($kmDelay * 1000)) }',
      'while ($true) {',
      '  $kmResult.wait_attempts++',
      '  if (KmReady) { break }',
      '  $kmResult.elapsed = ((Get-Date) - $kmStart).TotalSeconds',
      '  if ($kmResult.elapsed -ge $kmTimeout) {',
      '    $kmWhat = if ($null -ne $kmPort) { "port $kmPort on $kmHost" } else { "path $kmPath" }',
      '    KmFail "timeout while waiting for $kmWhat to be $kmState"',
      '  }',
      '  Start-Sleep -Milliseconds ([int]($kmSleep * 1000))',
      '}',
      '$kmResult.elapsed = ((Get-Date) - $kmStart).TotalSeconds',
    ],
  });
}

/** The port's range (Windows' TcpClient takes 1..65535), the wanted state, and the regex a file must contain. */
function readStateAndRegex(
  raw: RawArgs,
  { port, path }: WaitTarget,
): Pick<WinWaitForArgs, 'state' | 'regex'> {
  if (port !== undefined && (!Number.isInteger(port) || port > 65535))
    throw new TypeError('win_wait_for: "port" must be an integer 1..65535');
  const state = oneOf(
    'win_wait_for',
    raw,
    'state',
    ['present', 'started', 'absent', 'stopped', 'drained'],
    'started',
  );
  if (state === 'drained') throw new TypeError('win_wait_for: state "drained" is not supported by kubemix');
  const regex =
    optionalString('win_wait_for', raw, 'regex') ?? optionalString('win_wait_for', raw, 'search_regex');
  if (regex !== undefined && (path === undefined || state === 'absent' || state === 'stopped'))
    throw new TypeError('win_wait_for: "regex" works only with "path" and state present');
  return regex === undefined ? { state } : { state, regex };
}

/** `win_wait_for`: waits on the Windows host for a port to open or close, or a file to appear, match or vanish. */
export const winWaitForModule: Module<WinWaitForArgs> = {
  name: 'win_wait_for',
  os: 'windows',
  parseArgs(raw: RawArgs) {
    const { target, own, timing } = parseWaitForArgs(raw, {
      module: 'win_wait_for',
      supported: [
        'host',
        'port',
        'path',
        'state',
        'regex',
        'search_regex',
        'timeout',
        'delay',
        'sleep',
        'connect_timeout',
      ],
      readOwn: (target) => readStateAndRegex(raw, target),
      minSleep: 0.01,
      minConnectTimeout: 0.01,
    });
    const { host, ...rest } = timing;
    const args: WinWaitForArgs = { host, state: own.state, ...rest };
    if (target.port !== undefined) args.port = target.port;
    if (target.path !== undefined) args.path = target.path;
    if (own.regex !== undefined) args.regex = own.regex;
    return args;
  },
  *run(args) {
    const target = args.port !== undefined ? `${args.host}:${args.port}` : args.path;
    const result = yield {
      kind: 'exec',
      command: winWaitForScript(args),
      display: `win_wait_for: ${target} ${args.state}`,
      timeoutMs: (args.timeout + args.delay + args.connectTimeout + 30) * 1000,
    };
    return outcomeFromResult('win_wait_for', result);
  },
};
