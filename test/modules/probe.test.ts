import { describe, expect, it } from 'vitest';
import { probeModule } from '../../src/modules/probe.js';
import type { ModuleContext } from '../../src/modules/types.js';
import type { CommandResult } from '../../src/types/command-result.js';

const context = (os: 'linux' | 'windows'): ModuleContext => ({
  host: {
    name: 'h',
    address: 'a',
    os,
    connection: os === 'windows' ? 'winrm' : 'ssh',
    role: 'worker',
    group: 'g',
  },
  os,
  vars: {},
  checkMode: false,
});

const ok = (stdout: string): CommandResult => ({
  command: 'x',
  exitCode: 0,
  stdout,
  stderr: '',
  durationMs: 1,
  failed: false,
  timedOut: false,
});

describe('probe module', () => {
  it('asks Linux hosts for uname and reports the release', () => {
    const run = probeModule.run({}, context('linux'));
    const action = run.next().value;
    expect(action).toEqual({ kind: 'exec', command: 'uname -sr' });
    const outcome = run.next(ok('Linux 6.1.0\n'));
    expect(outcome).toMatchObject({
      done: true,
      value: { changed: false, failed: false, data: { os_release: 'Linux 6.1.0' } },
    });
  });

  it('asks Windows hosts through PowerShell', () => {
    const run = probeModule.run({}, context('windows'));
    const action = run.next().value as { command: string };
    expect(action.command).toContain('[Environment]::OSVersion');
  });

  it('fails with the error output when the command fails', () => {
    const run = probeModule.run({}, context('linux'));
    run.next();
    const outcome = run.next({ ...ok(''), exitCode: 127, failed: true, stderr: 'uname: not found' });
    expect(outcome.value).toMatchObject({ failed: true, msg: 'could not identify host: uname: not found' });
  });

  it('rejects arguments', () => {
    expect(() => probeModule.parseArgs({ x: 1 })).toThrow(/takes no arguments/);
  });
});
