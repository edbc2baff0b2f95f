import { describe, expect, it } from 'vitest';
import {
  encodePowerShell,
  MAX_COMMAND_LINE,
  powershellInvocation,
  STDIN_BOOTSTRAP,
  wrapScript,
} from '../../../src/transport/powershell/powershell.js';

describe('PowerShell command lines', () => {
  it('encodes scripts as base64 UTF-16LE for -EncodedCommand', () => {
    expect(encodePowerShell('dir')).toBe(Buffer.from('d\0i\0r\0', 'latin1').toString('base64'));
  });

  it('wraps scripts: stop on errors, env, cwd, exit code', () => {
    const script = wrapScript('Get-Service', { env: { A: "x'y" }, cwd: 'C:\\k' });
    expect(script).toContain("$ErrorActionPreference = 'Stop'");
    expect(script).toContain("$env:A = 'x''y'");
    expect(script).toContain("Set-Location -LiteralPath 'C:\\k'");
    expect(script).toContain('exit $LASTEXITCODE');
    expect(() => wrapScript('x', { env: { 'BAD NAME': '1' } })).toThrow(/invalid environment variable name/);
  });

  it('short scripts go inline; long ones through the stdin bootstrap', () => {
    const short = powershellInvocation("Write-Output 'x'");
    expect(short.stdinPrefix).toBeUndefined();
    expect(short.commandLine.length).toBeLessThanOrEqual(MAX_COMMAND_LINE);
    const long = 'Write-Output "Grüße"\n'.repeat(1000);
    const invocation = powershellInvocation(long);
    expect(invocation.commandLine.length).toBeLessThan(MAX_COMMAND_LINE);
    expect(invocation.commandLine).toContain(encodePowerShell(STDIN_BOOTSTRAP));
    const line = invocation.stdinPrefix!.toString('latin1');
    expect(line.endsWith('\n')).toBe(true);
    expect(Buffer.from(line.trim(), 'base64').toString('utf8')).toBe(long);
  });
});
