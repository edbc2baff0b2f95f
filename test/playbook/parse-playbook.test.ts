import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SpecError } from '../../src/errors/index.js';
import { loadPlaybook, parseExtraVars, parsePlaybook } from '../../src/playbook/index.js';
import { FIXTURES } from './helpers.js';

const issuesOf = (text: string, file = 'p.yml') => {
  try {
    parsePlaybook(text, file);
  } catch (error) {
    return (error as SpecError).issues.map((i) => `${i.line}:${i.column} ${i.path}: ${i.message}`);
  }
  return [];
};

describe('parsePlaybook', () => {
  it('parses every keyword of the fixture', async () => {
    const playbook = await loadPlaybook(join(FIXTURES, 'playbooks/every-keyword.yml'));
    expect(playbook.dir).toBe(join(FIXTURES, 'playbooks'));
    const [play] = playbook.plays;
    expect(play).toMatchObject({
      name: 'every keyword',
      hosts: 'all',
      gatherFacts: false,
      tags: ['demo'],
      varsFiles: ['vars/common.yml'],
      environment: { KMX_PLAY_ENV: 'from-play' },
    });
    const tasks = play!.sections[1]!;
    const byName = (name: string) => tasks.find((t) => t.name === name)!;
    expect(byName('make the host directory')).toMatchObject({
      module: 'file',
      args: { mode: '0755', state: 'directory' },
    });
    expect(byName('write a config file')).toMatchObject({
      module: 'copy',
      notify: ['config changed'],
      args: { mode: 0o640 },
    });
    expect(byName('read the config back')).toMatchObject({
      module: 'command',
      args: { _raw_params: 'cat {{ host_dir }}/config.txt' },
      register: 'config',
      changedWhen: false,
    });
    expect(byName('loop over items with a condition per item')).toMatchObject({
      loop: '{{ packages_wanted }}',
      loopVar: 'pkg',
      indexVar: 'pkg_index',
      when: "pkg != 'beta'",
    });
    expect(byName('with_items flattens one level')).toMatchObject({
      loopFlatten: true,
      loop: [['x', 'y'], 'z'],
    });
    expect(byName('count attempts until the counter reaches 3')).toMatchObject({
      retries: 5,
      delay: 0,
      until: 'counter.stdout | int >= 3',
    });
    expect(byName('run on the controller').delegateTo).toBe('localhost');
    expect(byName('run once for the whole play').runOnce).toBe(true);
    expect(byName('a failure that is ignored').ignoreErrors).toBe(true);
    expect(byName('as root through become')).toMatchObject({ become: true, becomeUser: 'root' });
    expect(byName('only with --tags cleanup').tags).toEqual(['never', 'cleanup']);
    expect(byName('make the host directory').location).toMatchObject({ line: 19, column: 7 });
    expect(play!.handlers.map((h) => [h.name, h.listen])).toEqual([
      ['config changed', []],
      ['reload the app', ['app reload topic']],
    ]);
  });

  it('reads free-form arguments and the FQCN and short module names', () => {
    const playbook = parsePlaybook(`
- hosts: all
  tasks:
    - ansible.builtin.shell: cat /etc/hosts | grep x chdir=/tmp creates="/tmp/a b"
    - command: echo hi
      args: { chdir: /srv }
    - file: path=/tmp/x state=directory mode=0700
    - debug: msg="hello {{ name }}"
`);
    const tasks = playbook.plays[0]!.sections[1]!;
    expect(tasks.map((t) => [t.name, t.module, t.args])).toEqual([
      ['shell', 'shell', { _raw_params: 'cat /etc/hosts | grep x', chdir: '/tmp', creates: '/tmp/a b' }],
      ['command', 'command', { _raw_params: 'echo hi', chdir: '/srv' }],
      ['file', 'file', { path: '/tmp/x', state: 'directory', mode: '0700' }],
      ['debug', 'debug', { msg: 'hello {{ name }}' }],
    ]);
  });

  it('reports every problem of a broken playbook with file, path and line:column', async () => {
    const path = join(FIXTURES, 'playbooks/invalid.yml');
    expect(issuesOf(await readFile(path, 'utf8'), path)).toEqual([
      '3:3 0.serial: play keyword "serial" is not supported by kubemix',
      '7:7 0.tasks.0.retry: unknown task keyword or module "retry"',
      '9:7 0.tasks.1.no_such_module: unknown task keyword or module "no_such_module"',
      '13:7 0.tasks.2.shell: a task runs one module, found command, shell',
      '16:9 0.tasks.3.copy: copy: give exactly one of "src" or "content"',
      '19:22 0.tasks.4.ignore_errors: must be a boolean (yes/no, true/false)',
      '20:7 0.notify: task "notify a handler that does not exist" notifies "nowhere", but the play has no such handler',
    ]);
  });

  it('reads throttle on plays and tasks (an integer or a template) and refuses anything else', () => {
    const playbook = parsePlaybook(
      '- hosts: all\n  throttle: 3\n  tasks:\n    - command: "true"\n      throttle: 1\n    - command: "true"\n      throttle: "{{ n }}"\n',
    );
    expect(playbook.plays[0]!.throttle).toBe(3);
    expect(playbook.plays[0]!.sections[1]!.map((t) => t.throttle)).toEqual([1, '{{ n }}']);
    expect(issuesOf('- hosts: all\n  tasks:\n    - command: "true"\n      throttle: one\n')).toEqual([
      '4:17 0.tasks.0.throttle: must be an integer (or a {{ template }}): Failed to convert the throttle value to an integer.',
    ]);
  });

  it('reports YAML syntax errors with their position', () => {
    expect(issuesOf('- hosts: all\n  tasks: [\n')).toHaveLength(1);
    expect(issuesOf('- hosts: all\n  tasks: [\n')[0]).toMatch(/^3:1 : /);
    expect(issuesOf('hosts: all\n')).toEqual(['1:1 : a playbook must be a list of plays']);
    expect(issuesOf('- tasks: []\n')).toEqual([
      '1:3 0: a play needs "hosts" (a host pattern such as all or a group name)',
    ]);
  });

  it('reads YAML 1.1 booleans and octal modes like Ansible', () => {
    const playbook = parsePlaybook(
      '- hosts: all\n  become: yes\n  tasks:\n    - file: { path: /x, mode: 0644 }\n      ignore_errors: on\n',
    );
    expect(playbook.plays[0]!.become).toBe(true);
    expect(playbook.plays[0]!.sections[1]![0]).toMatchObject({ args: { mode: 0o644 }, ignoreErrors: true });
  });
});

describe('parseExtraVars', () => {
  it('accepts key=value, JSON and YAML mappings; later values win', () => {
    expect(parseExtraVars(['a=1 b="two words"', '{"c": [1, 2]}', 'a=3'])).toEqual({
      a: '3',
      b: 'two words',
      c: [1, 2],
    });
    expect(() => parseExtraVars(['novalue'])).toThrow(/not key=value/);
  });
});
