import { describe, expect, it } from 'vitest';
import { commandModule, shellModule } from '../../src/modules/commands/command.js';
import { rawModule } from '../../src/modules/commands/raw.js';
import { scriptModule } from '../../src/modules/commands/script.js';
import { FIXTURES } from '../playbook/helpers.js';
import { context, drive, result } from './drive.js';

describe('command / shell', () => {
  it('runs the command with chdir and stdin and registers rc/stdout lines', () => {
    const { actions, outcome } = drive(commandModule, { _raw_params: 'cat', chdir: '/srv', stdin: 'data' }, [
      result('a\nb\n'),
    ]);
    expect(actions).toEqual([{ kind: 'exec', command: 'cat', cwd: '/srv', stdin: 'data\n' }]);
    expect(outcome).toMatchObject({
      changed: true,
      failed: false,
      data: { rc: 0, stdout: 'a\nb', stdout_lines: ['a', 'b'], stderr_lines: [] },
    });
  });

  it('fails on a non-zero exit code', () => {
    const { outcome } = drive(shellModule, { cmd: 'exit 3' }, [result('', { exitCode: 3, stderr: 'boom' })]);
    expect(outcome).toMatchObject({
      changed: true,
      failed: true,
      msg: 'non-zero return code',
      data: { rc: 3, stderr: 'boom' },
    });
  });

  it('guards with creates/removes and reports no change when the guard matches', () => {
    const { execs, outcome } = drive(
      commandModule,
      { cmd: 'kubeadm init', creates: '/etc/kubernetes/admin.conf' },
      [result('__KUBEMIX_SKIPPED__\n')],
    );
    expect(execs[0]).toBe(
      "if [ -e '/etc/kubernetes/admin.conf' ]; then echo __KUBEMIX_SKIPPED__; else kubeadm init; fi",
    );
    expect(outcome).toMatchObject({ changed: false, failed: false });
  });

  it('quotes argv and runs shell through another executable', () => {
    expect(drive(commandModule, { argv: ['echo', "it's"] }, [result()]).execs).toEqual([`'echo' 'it'\\''s'`]);
    expect(drive(shellModule, { cmd: 'echo $0', executable: '/bin/bash' }, [result()]).execs).toEqual([
      `'/bin/bash' -c 'echo $0'`,
    ]);
  });

  it('is skipped in check mode, like Ansible', () => {
    const { actions, outcome } = drive(commandModule, { cmd: 'rm -rf /x' }, [], context({ checkMode: true }));
    expect(actions).toEqual([]);
    expect(outcome.data).toEqual({ skipped: true });
  });

  it('rejects bad arguments naming them', () => {
    expect(() => commandModule.parseArgs({})).toThrow('command: "cmd" must be a non-empty string');
    expect(() => commandModule.parseArgs({ cmd: 'x', chdri: '/' })).toThrow(
      'command: unsupported argument "chdri"',
    );
  });
});

describe('raw', () => {
  it('sends the command line as is', () => {
    const { execs, outcome } = drive(rawModule, { _raw_params: 'echo raw' }, [result('raw\n')]);
    expect(execs).toEqual(['echo raw']);
    expect(outcome).toMatchObject({ changed: true, failed: false, data: { stdout: 'raw' } });
  });
});

describe('script', () => {
  it('copies the local script, runs it with its arguments and removes it', () => {
    const ctx = context({ vars: { playbook_dir: `${FIXTURES}playbooks` } });
    const { actions, outcome } = drive(
      scriptModule,
      { _raw_params: 'hello.sh one "two words"' },
      [result(), result('hello\n')],
      ctx,
    );
    const put = actions[0] as { kind: 'put'; remotePath: string; mode: number; content: Buffer };
    expect(put).toMatchObject({ kind: 'put', mode: 0o700 });
    expect(put.remotePath).toMatch(/^\/tmp\/\.kubemix-script-node1-[0-9a-f]{16}-[0-9a-f]{12}-hello\.sh$/);
    expect(put.content.toString()).toContain('hello from script');
    expect(actions[1]).toEqual({
      kind: 'exec',
      command: `'${put.remotePath}' one "two words"; kmx_rc=$?; rm -f '${put.remotePath}'; exit $kmx_rc`,
    });
    expect(outcome).toMatchObject({ changed: true, failed: false, data: { stdout: 'hello' } });
  });

  it('fails clearly when the local script is missing', () => {
    const { outcome } = drive(scriptModule, { _raw_params: '/nonexistent/x.sh' }, []);
    expect(outcome).toMatchObject({ failed: true });
    expect(outcome.msg).toContain('cannot read local script /nonexistent/x.sh');
  });
});
