import { createHash } from 'node:crypto';
import { chmod, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyModule } from '../../src/modules/files/copy.js';
import { fetchModule } from '../../src/modules/files/fetch.js';
import { fileModule, fileScript } from '../../src/modules/files/file.js';
import { editLines, lineinfileModule } from '../../src/modules/files/lineinfile.js';
import { templateModule } from '../../src/modules/files/template.js';
import { testTempDir } from '../helpers/temp.js';
import { FIXTURES } from '../playbook/helpers.js';
import { context, drive, result } from './drive.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const stat = (dest: string, text: string, mode = '644') =>
  result(`__KMX_DEST__ ${dest}\n__KMX_STAT__ ${sha(text)} ${mode} root root\n`);

describe('copy', () => {
  it('does nothing when checksum and mode already match (one round trip)', () => {
    const { actions, outcome } = drive(copyModule, { content: 'hi\n', dest: '/etc/x', mode: '0644' }, [
      stat('/etc/x', 'hi\n'),
    ]);
    expect(actions).toHaveLength(1);
    expect(outcome).toMatchObject({
      changed: false,
      failed: false,
      data: { dest: '/etc/x', checksum: sha('hi\n') },
    });
  });

  it('writes a temp file and renames it into place when content differs, keeping the old mode', () => {
    const { actions, outcome } = drive(copyModule, { content: 'new\n', dest: '/etc/x' }, [
      stat('/etc/x', 'old\n', '600'),
      result(),
      result(),
    ]);
    expect(actions[1]).toMatchObject({ kind: 'put', remotePath: '/etc/x.kubemix-tmp' });
    expect((actions[1] as { content: Buffer }).content.toString()).toBe('new\n');
    expect(actions[2]).toEqual({
      kind: 'exec',
      command: "set -e\nmv -f '/etc/x.kubemix-tmp' '/etc/x'\nchmod 600 '/etc/x'",
    });
    expect(outcome).toMatchObject({ changed: true, failed: false });
  });

  it('only fixes mode and owner when the content is right', () => {
    const { actions, outcome } = drive(
      copyModule,
      { content: 'hi\n', dest: '/etc/x', mode: 0o600, owner: 'app' },
      [stat('/etc/x', 'hi\n'), result()],
    );
    expect(actions.map((a) => a.kind)).toEqual(['exec', 'exec']);
    expect((actions[1] as { command: string }).command).toBe(
      "set -e\nchmod 600 '/etc/x'\nchown 'app' '/etc/x'",
    );
    expect(outcome.changed).toBe(true);
  });

  it('backs up the old file when asked', () => {
    const { actions, outcome } = drive(copyModule, { content: 'b', dest: '/etc/x', backup: true }, [
      stat('/etc/x', 'a'),
      result(),
      result('__KMX_BACKUP__ /etc/x.2026-01-01@00:00:00~\n'),
    ]);
    expect((actions[2] as { command: string }).command).toContain('cp -p \'/etc/x\' "$b"');
    expect(outcome.data).toMatchObject({ backup_file: '/etc/x.2026-01-01@00:00:00~' });
  });

  it('reports the change without making it in check mode', () => {
    const { actions, outcome } = drive(
      copyModule,
      { content: 'b', dest: '/etc/x' },
      [result('__KMX_DEST__ /etc/x\n__KMX_ABSENT__\n')],
      context({ checkMode: true }),
    );
    expect(actions).toHaveLength(1);
    expect(outcome).toMatchObject({ changed: true, failed: false });
  });

  it('copies a local src into a directory destination under its basename', () => {
    const ctx = context({ vars: { playbook_dir: `${FIXTURES}playbooks` } });
    const { actions } = drive(
      copyModule,
      { src: 'hello.sh', dest: '/opt/' },
      [result('__KMX_DEST__ /opt/hello.sh\n__KMX_ABSENT__\n'), result(), result()],
      ctx,
    );
    expect((actions[0] as { command: string }).command).toContain(
      `if [ -d "$d" ]; then d="\${d%/}/"'hello.sh'; fi`,
    );
    expect(actions[1]).toMatchObject({ kind: 'put', remotePath: '/opt/hello.sh.kubemix-tmp' });
  });

  it('validates arguments', () => {
    expect(() => copyModule.parseArgs({ dest: '/x' })).toThrow(
      'copy: give exactly one of "src" or "content"',
    );
    expect(() => copyModule.parseArgs({ content: 'x' })).toThrow('copy: "dest" is required');
    expect(() => copyModule.parseArgs({ content: 'x', dest: '/x', mode: 'u+x' })).toThrow(/octal mode/);
  });
});

describe('template', () => {
  it('renders the local template with the host variables, then copies', () => {
    const dir = `${FIXTURES}playbooks`;
    const vars = {
      playbook_dir: dir,
      app_name: 'demo',
      inventory_hostname: 'node1',
      app_settings: { colour: 'red', replicas: 1 },
      groups: { web: ['w1'] },
    };
    const { actions } = drive(
      templateModule,
      { src: 'app.conf.j2', dest: '/etc/app.conf' },
      [result('__KMX_DEST__ /etc/app.conf\n__KMX_ABSENT__\n'), result(), result()],
      context({ vars }),
    );
    expect((actions[1] as { content: Buffer }).content.toString()).toBe(
      '# demo on node1\ncolour=red\nreplicas=1\nweb=w1\nrole=web\n',
    );
  });

  it('fails naming the undefined variable', () => {
    const { outcome } = drive(
      templateModule,
      { src: 'app.conf.j2', dest: '/x' },
      [],
      context({ vars: { playbook_dir: `${FIXTURES}playbooks` } }),
    );
    expect(outcome).toMatchObject({ failed: true });
    expect(outcome.msg).toContain("'app_name' is undefined");
  });
});

describe('fetch', () => {
  it('gets the file into dest/<host>/<path> unless the local copy matches', async () => {
    const dir = await testTempDir('fetch');
    const fetched = drive(fetchModule, { src: '/etc/hostname', dest: dir }, [
      result(`${sha('node1\n')}\n`),
      result(),
    ]);
    expect(fetched.actions[1]).toEqual({
      kind: 'get',
      remotePath: '/etc/hostname',
      localPath: join(dir, 'node1', '/etc/hostname'),
    });
    expect(fetched.outcome).toMatchObject({ changed: true, failed: true });
    expect(fetched.outcome.msg).toContain('checksum mismatch');
    await writeFile(join(dir, 'flat.txt'), 'node1\n', { mode: 0o600 });
    const same = drive(fetchModule, { src: '/etc/hostname', dest: join(dir, 'flat.txt'), flat: true }, [
      result(`${sha('node1\n')}\n`),
    ]);
    expect(same.outcome).toMatchObject({ changed: false, failed: false });
    // The same content readable by others (a copy from an older kubemix) is fetched again, privately.
    await chmod(join(dir, 'flat.txt'), 0o644);
    const exposed = drive(fetchModule, { src: '/etc/hostname', dest: join(dir, 'flat.txt'), flat: true }, [
      result(`${sha('node1\n')}\n`),
      result(),
    ]);
    expect(exposed.actions.map((a) => a.kind)).toEqual(['exec', 'get']);
    const missing = drive(fetchModule, { src: '/nope', dest: dir, fail_on_missing: false }, [
      result('__KMX_MISSING__\n'),
    ]);
    expect(missing.outcome).toMatchObject({ changed: false, failed: false });
    await rm(dir, { recursive: true, force: true });
  });
});

describe('file', () => {
  it('creates a directory with a mode in one script and reports the change marker', () => {
    const { execs, outcome } = drive(fileModule, { path: '/srv/app', state: 'directory', mode: '0750' }, [
      result('__KUBEMIX_CHANGED__\n'),
    ]);
    expect(execs[0]).toContain("if [ -d '/srv/app' ]; then :; elif [ -e '/srv/app' ]; then");
    expect(execs[0]).toContain("[ \"$(stat -c %a '/srv/app')\" = 750 ] || kmx_do chmod 750 '/srv/app'");
    expect(outcome).toMatchObject({ changed: true, failed: false });
    expect(drive(fileModule, { path: '/srv/app', state: 'directory' }, [result('')]).outcome.changed).toBe(
      false,
    );
  });

  it('does not run the mutating commands in check mode', () => {
    expect(fileScript({ path: '/x', state: 'absent', force: false, recurse: false }, true)).toContain(
      'kmx_do() { kmx_changed=1; :; }',
    );
    expect(fileScript({ path: '/x', state: 'absent', force: false, recurse: false }, false)).toContain(
      'kmx_do() { kmx_changed=1; "$@"; }',
    );
  });

  it('fails with the script error', () => {
    const { outcome } = drive(fileModule, { path: '/x', state: 'file' }, [
      result('', { exitCode: 1, stderr: 'file (/x) is absent, cannot continue\n' }),
    ]);
    expect(outcome).toMatchObject({
      changed: false,
      failed: true,
      msg: 'file (/x) is absent, cannot continue',
    });
  });

  it('validates arguments', () => {
    expect(() => fileModule.parseArgs({ path: '/x', state: 'link' })).toThrow(
      'file: "src" is required with state=link',
    );
    expect(() => fileModule.parseArgs({ path: '/x', state: 'gone' })).toThrow('file: "state" must be one of');
  });
});

describe('lineinfile', () => {
  const args = (extra: Record<string, unknown>) => lineinfileModule.parseArgs({ path: '/f', ...extra });
  it('edits text like Ansible', () => {
    expect(editLines('a\nb\n', args({ line: 'c' }))).toMatchObject({ text: 'a\nb\nc\n', edit: 'line added' });
    expect(editLines('a\nb\n', args({ line: 'b' }))).toMatchObject({ text: 'a\nb\n', edit: 'unchanged' });
    expect(editLines('x=1\ny=2\nx=3\n', args({ regexp: '^x=', line: 'x=9' }))).toMatchObject({
      text: 'x=1\ny=2\nx=9\n',
      edit: 'line replaced',
    });
    expect(
      editLines('x=1\ny=2\nx=3\n', args({ regexp: '^x=', line: 'x=9', firstmatch: true })),
    ).toMatchObject({ text: 'x=9\ny=2\nx=3\n' });
    expect(editLines('a\n[s]\nb\n', args({ line: 'new', insertafter: '^\\[s\\]' })).text).toBe(
      'a\n[s]\nnew\nb\n',
    );
    expect(editLines('a\nb\n', args({ line: 'top', insertbefore: 'BOF' })).text).toBe('top\na\nb\n');
    expect(editLines('a\nb\na\n', args({ state: 'absent', line: 'a' }))).toMatchObject({
      text: 'b\n',
      edit: 'line removed',
      found: 2,
    });
    expect(
      editLines('v=1.2\n', args({ regexp: '^v=(\\d+)\\.(\\d+)$', line: 'v=\\2.\\1', backrefs: true })).text,
    ).toBe('v=2.1\n');
    expect(editLines('no newline', args({ line: 'x' })).text).toBe('no newline\nx\n');
  });

  it('reads the file, and writes it back only on change keeping its mode', () => {
    const read = result('__KMX_FILE__ 600\nkey=old\n\n__KMX_EOF__\n');
    const { actions, outcome } = drive(
      lineinfileModule,
      { path: '/etc/f', regexp: '^key=', line: 'key=new' },
      [read, result(), result()],
    );
    expect(actions[1]).toEqual({ kind: 'put', remotePath: '/etc/f.kubemix-tmp', content: 'key=new\n' });
    expect(actions[2]).toEqual({
      kind: 'exec',
      command: "chmod 600 '/etc/f.kubemix-tmp' && mv -f '/etc/f.kubemix-tmp' '/etc/f'",
    });
    expect(outcome).toMatchObject({ changed: true, failed: false, msg: 'line replaced' });
    const unchanged = drive(lineinfileModule, { path: '/etc/f', line: 'key=old' }, [read]);
    expect(unchanged.outcome.changed).toBe(false);
  });

  it('fails on a missing file unless create is set, and respects check mode', () => {
    const missing = result('__KMX_MISSING__\n');
    expect(drive(lineinfileModule, { path: '/f', line: 'x' }, [missing]).outcome).toMatchObject({
      failed: true,
      msg: 'Destination /f does not exist !',
    });
    expect(
      drive(
        lineinfileModule,
        { path: '/f', line: 'x', create: true },
        [missing],
        context({ checkMode: true }),
      ).outcome,
    ).toMatchObject({ changed: true, failed: false });
    expect(() => lineinfileModule.parseArgs({ path: '/f', regexp: '(' })).toThrow(
      /line" is required|not a valid regular expression/,
    );
  });
});
