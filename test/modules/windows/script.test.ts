import { describe, expect, it } from 'vitest';
import {
  moduleHeader,
  moduleScript,
  outcomeFromResult,
  parseModuleHeader,
  parseResultLine,
  psValue,
  RESULT_MARKER,
} from '../../../src/modules/windows/script.js';
import { resultOf } from './helpers.js';

describe('module script helpers', () => {
  it('writes JSON-like values as PowerShell literals', () => {
    expect(psValue(['a', 1, true, null])).toBe("@('a', 1, $true, $null)");
    expect(psValue([])).toBe('@()');
    expect(() => psValue({})).toThrow(TypeError);
  });

  it('writes a one-line JSON header and reads it back', () => {
    const header = moduleHeader('win_copy', { dest: 'C:\\a\nb', n: 1 });
    expect(header.split('\n')).toHaveLength(1);
    expect(parseModuleHeader(`${header}\nWrite-Output 1`)).toEqual({
      module: 'win_copy',
      args: { dest: 'C:\\a\nb', n: 1 },
    });
    expect(parseModuleHeader('Write-Output 1')).toBeUndefined();
    expect(parseModuleHeader('# kubemix-module: win_x {not json')).toBeUndefined();
  });

  it('builds scripts that start with the header and end with the result line', () => {
    const script = moduleScript({
      module: 'win_file',
      header: { a: 1 },
      vars: { kmA: 'x' },
      initial: { path: 'p' },
      body: ['$kmResult.changed = $true'],
    });
    const lines = script.split('\n');
    expect(lines[0]).toBe('# kubemix-module: win_file {"a":1}');
    expect(lines).toContain("$kmA = 'x'");
    expect(lines).toContain("$kmResult = @{ changed = $false; failed = $false; path = 'p' }");
    expect(lines.at(-1)).toContain(RESULT_MARKER);
  });

  it('reads the last result line and turns it into an outcome', () => {
    const stdout = `noise\r\n${RESULT_MARKER} {"changed":false}\r\n${RESULT_MARKER} {"changed":true,"failed":false,"reboot_required":true,"x":1}\r\n`;
    expect(parseResultLine(stdout)).toEqual({ changed: true, failed: false, reboot_required: true, x: 1 });
    const outcome = outcomeFromResult('win_feature', resultOf({ changed: true, reboot_required: true }));
    expect(outcome).toEqual({
      changed: true,
      failed: false,
      rebootRequired: true,
      data: { reboot_required: true },
    });
    const failed = outcomeFromResult(
      'win_file',
      resultOf({ failed: true, msg: 'path C:\\a will not be created' }),
    );
    expect(failed).toMatchObject({ failed: true, msg: 'win_file: path C:\\a will not be created' });
  });

  it('fails clearly when the script printed no result line, and distrusts success on a failed command', () => {
    const lost = outcomeFromResult('win_path', {
      ...resultOf({}),
      stdout: '',
      exitCode: null,
      failed: true,
      stderr: 'connection lost',
    });
    expect(lost).toMatchObject({ failed: true, msg: 'win_path: connection lost' });
    const silent = outcomeFromResult('win_path', { ...resultOf({}), stdout: 'hello\n' });
    expect(silent.msg).toBe(`win_path: the script printed no result line (${RESULT_MARKER})`);
    const liar = outcomeFromResult('win_path', resultOf({ changed: true }, { exitCode: 3, stderr: 'boom' }));
    expect(liar).toMatchObject({ failed: true, msg: 'win_path: boom' });
  });
});
