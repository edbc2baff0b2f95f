import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NO_LOG_MESSAGE } from '../../src/engine/no-log.js';
import { EXIT, UsageError } from '../../src/errors/index.js';
import { parseInventory, parsePlaybook, runPlaybook } from '../../src/playbook/index.js';
import { testTempDir } from '../helpers/temp.js';
import { eventLog, localTransports } from './helpers.js';

const inventory = parseInventory(`
all:
  children:
    web:
      hosts:
        web1: { ansible_connection: local }
        web2: { ansible_connection: local }
    db:
      hosts:
        db1: { ansible_connection: local }
`);

let work: string;
beforeEach(async () => {
  work = await testTempDir('playbook');
});
afterEach(() => rm(work, { recursive: true, force: true }));

const playbook = (text: string) => ({ ...parsePlaybook(text), dir: work });

describe('runPlaybook', () => {
  it('drops a failed host from the rest of the run (later plays too) and exits 2', async () => {
    const result = await runPlaybook({
      playbook: playbook(`
- hosts: all
  tasks:
    - name: db fails
      fail: { msg: "db1 is broken" }
      when: inventory_hostname == 'db1'
    - name: the others go on
      command: touch ${work}/{{ inventory_hostname }}-2
- hosts: db:web
  tasks:
    - name: second play
      command: touch ${work}/{{ inventory_hostname }}-3
`),
      inventory,
      transports: localTransports,
    });
    expect(result.exitCode).toBe(EXIT.failed);
    expect(result.status).toBe('failed');
    expect(result.stats['db1']).toMatchObject({ ok: 0, failed: 1 });
    expect(result.stats['web1']).toMatchObject({ ok: 2, changed: 2, failed: 0, skipped: 1 });
    expect(existsSync(join(work, 'db1-2'))).toBe(false);
    expect(existsSync(join(work, 'db1-3'))).toBe(false);
    expect(existsSync(join(work, 'web2-3'))).toBe(true);
    expect(result.records.find((r) => r.host === 'db1')).toMatchObject({
      status: 'failed',
      msg: 'db1 is broken',
    });
  });

  it('reports unreachable hosts, lets the others finish, and exits 1 (failed)', async () => {
    const withGhost = parseInventory(`
all:
  hosts:
    web1: { ansible_connection: local }
    unreachable1: { ansible_host: 192.0.2.1 }
    db1: { ansible_connection: local }
`);
    const { events, onEvent } = eventLog();
    const result = await runPlaybook({
      playbook: playbook(`
- hosts: all
  tasks:
    - command: touch ${work}/{{ inventory_hostname }}
    - fail:
      when: inventory_hostname == 'db1'
    - command: echo after
`),
      inventory: withGhost,
      transports: localTransports,
      onEvent,
    });
    expect(result.exitCode).toBe(EXIT.failed);
    expect(result.stats['unreachable1']).toMatchObject({ unreachable: 1, ok: 0 });
    expect(result.stats['web1']).toMatchObject({ ok: 2, changed: 2, skipped: 1 });
    expect(result.stats['db1']).toMatchObject({ failed: 1 });
    expect(
      events.filter((e) => e.type === 'host-unreachable').map((e) => (e as { host: string }).host),
    ).toEqual(['unreachable1']);
    expect(existsSync(join(work, 'web1'))).toBe(true);
  });

  it('changes nothing in check mode but reports what would change', async () => {
    await writeFile(join(work, 'existing.txt'), 'a\n');
    const result = await runPlaybook({
      playbook: playbook(`
- hosts: web1
  tasks:
    - copy: { content: "new\\n", dest: "${work}/new.txt" }
    - lineinfile: { path: "${work}/existing.txt", line: b }
    - file: { path: "${work}/dir", state: directory }
    - command: touch ${work}/by-command
    - set_fact: { x: 1 }
    - assert: { that: [ansible_check_mode, x == 1] }
`),
      inventory,
      transports: localTransports,
      check: true,
    });
    expect(result.exitCode).toBe(0);
    expect(result.stats['web1']).toEqual({
      ok: 5,
      changed: 3,
      unreachable: 0,
      failed: 0,
      skipped: 1,
      rescued: 0,
      ignored: 0,
    });
    expect(existsSync(join(work, 'new.txt'))).toBe(false);
    expect(existsSync(join(work, 'dir'))).toBe(false);
    expect(existsSync(join(work, 'by-command'))).toBe(false);
    expect(await readFile(join(work, 'existing.txt'), 'utf8')).toBe('a\n');
  });

  it('hides no_log output and command lines from events', async () => {
    const { events, onEvent } = eventLog();
    const result = await runPlaybook({
      playbook: playbook(`
- hosts: web1
  tasks:
    - name: secret
      shell: echo "token={{ join_token }}"
      no_log: true
      register: joined
    - name: use it
      assert: { that: ["'s3cr3t-value' in joined.stdout"] }
`),
      inventory,
      transports: localTransports,
      extraVars: { join_token: 's3cr3t-value' },
      onEvent,
    });
    expect(result.exitCode).toBe(0);
    expect(JSON.stringify(events)).not.toContain('s3cr3t-value');
    expect(JSON.stringify(result.records)).not.toContain('s3cr3t-value');
  });

  it('tells why a no_log task failed, with the secrets it knows replaced, and nothing of its output', async () => {
    const { events, onEvent } = eventLog();
    const result = await runPlaybook({
      playbook: playbook(`
- hosts: web1
  tasks:
    - name: key
      shell: echo k3y5ecretvalue9
      register: made
      no_log: true
    - name: quota
      fail: { msg: "InstanceLimitExceeded: limit of 4 reached for key {{ made.stdout }}" }
      no_log: true
`),
      inventory,
      transports: localTransports,
      onEvent,
    });
    expect(result.exitCode).toBe(EXIT.failed);
    const told = 'InstanceLimitExceeded: limit of 4 reached for key *** (output hidden by no_log)';
    expect(result.records.map((r) => r.msg)).toEqual([NO_LOG_MESSAGE, told]);
    expect(events.find((e) => e.type === 'task-end' && e.task === 'quota')).toMatchObject({
      error: `web1: ${told}`,
    });
    expect(JSON.stringify(events)).not.toContain('k3y5ecretvalue9');
  });

  it('treats what a no_log task registers as a secret for the rest of the run, line by line and word by word', async () => {
    // The same mechanism as `kubemix up`: a later task that renders one line or one word of the
    // registered output shows *** there, in its command, its output, its message and its failure.
    const key = '6f0ad3c8e5b84f7c9d0e1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7';
    const token = 'x7k2pq.a8b7c6d5e4f3g2h1';
    const caHash = 'sha256:1a1599705b8f23b3ab13d1f3bd1b6c45444ecfd7e0450774b7b724f2b019764c';
    const { events, onEvent } = eventLog();
    const result = await runPlaybook({
      playbook: playbook(`
- hosts: web1
  tasks:
    - name: upload certs
      shell: printf '%s\\n' 'Using certificate key:' ${key}
      register: certs
      no_log: true
    - name: join command
      shell: echo kubeadm join 10.0.0.1:6443 --token ${token} --discovery-token-ca-cert-hash ${caHash}
      register: joiner
      no_log: true
    - name: join
      shell: echo "{{ joiner.stdout }} --certificate-key {{ certs.stdout_lines | last }}"
    - name: tell
      debug: { msg: "token {{ joiner.stdout.split()[4] }}" }
    - name: refuse
      fail: { msg: "bad key {{ certs.stdout_lines | last }}" }
`),
      inventory,
      transports: localTransports,
      onEvent,
    });
    expect(result.exitCode).toBe(EXIT.failed);
    const join = events.find((e) => e.type === 'step-end' && e.step === 'join');
    expect(join).toMatchObject({
      result: {
        stdout: `kubeadm join 10.0.0.1:6443 --token *** --discovery-token-ca-cert-hash ${caHash} --certificate-key ***\n`,
      },
    });
    expect(result.records.map((r) => r.msg)).toEqual(expect.arrayContaining(['token ***', 'bad key ***']));
    for (const text of [JSON.stringify(events), JSON.stringify(result.records)]) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(token);
    }
  });

  it('honours --limit, extra vars over play vars, and forks', async () => {
    const { events, onEvent } = eventLog();
    const result = await runPlaybook({
      playbook: playbook(`
- hosts: all
  vars: { who: play }
  tasks:
    - name: write
      shell: sleep 0.2; echo {{ who }} > ${work}/{{ inventory_hostname }}
`),
      inventory,
      transports: localTransports,
      limit: 'all:!db1',
      extraVars: { who: 'extra' },
      forks: 1,
      onEvent,
    });
    expect(Object.keys(result.stats)).toEqual(['web1', 'web2']);
    expect(await readFile(join(work, 'web1'), 'utf8')).toBe('extra\n');
    // forks: 1 runs hosts one after the other: web1 ends before web2 starts.
    const order = events
      .filter((e) => e.type === 'step-start' || e.type === 'step-end')
      .map((e) => `${e.type}:${(e as { host: string }).host}`);
    expect(order).toEqual(['step-start:web1', 'step-end:web1', 'step-start:web2', 'step-end:web2']);
    await expect(
      runPlaybook({
        playbook: playbook('- hosts: all\n  tasks: [{ command: "true" }]\n'),
        inventory,
        transports: localTransports,
        limit: 'nosuchhost',
      }),
    ).rejects.toThrow(UsageError);
  });

  it('fails a task with an undefined variable naming it, and ignore_errors carries on', async () => {
    const result = await runPlaybook({
      playbook: playbook(`
- hosts: web1
  tasks:
    - name: uses an undefined variable
      command: echo {{ not_set }}
      ignore_errors: yes
    - name: next
      debug: { msg: "{{ missing | default('fallback') }}" }
`),
      inventory,
      transports: localTransports,
    });
    expect(result.exitCode).toBe(0);
    expect(result.records[0]?.msg).toContain("'not_set' is undefined");
    expect(result.records[1]?.msg).toBe('fallback');
    expect(result.stats['web1']).toMatchObject({ ok: 2, ignored: 1, failed: 0 });
  });

  it('runs plays on the implicit localhost and flushes handlers per section', async () => {
    const result = await runPlaybook({
      playbook: playbook(`
- hosts: localhost
  pre_tasks:
    - command: echo pre
      notify: mark
  tasks:
    - command: cat ${work}/mark
      register: seen
      changed_when: false
    - assert: { that: "seen.stdout == 'marked'" }
  handlers:
    - name: mark
      shell: echo marked > ${work}/mark
`),
      inventory,
      transports: localTransports,
    });
    expect(result.exitCode).toBe(0);
    expect(result.stats['localhost']).toMatchObject({ ok: 4, changed: 2, failed: 0 });
  });

  it('runs a throttled task on as many hosts at once as throttle says (play throttle for the others)', async () => {
    // mkdir is atomic: each host registers itself, counts the registered hosts, holds a moment, leaves.
    const probe = (label: string) =>
      `mkdir ${work}/running.${label}.{{ inventory_hostname }} && ls -d ${work}/running.${label}.* | wc -l >> ${work}/counts.${label}; sleep 0.3; rmdir ${work}/running.${label}.{{ inventory_hostname }}`;
    const result = await runPlaybook({
      playbook: playbook(`
- hosts: all
  throttle: 2
  vars:
    one: 1
  tasks:
    - shell: ${probe('play')}
    - shell: ${probe('task')}
      throttle: "{{ one }}"
    - shell: ${probe('free')}
      throttle: 0
`),
      inventory,
      transports: localTransports,
    });
    expect(result.exitCode).toBe(0);
    const max = async (label: string) =>
      Math.max(...(await readFile(join(work, `counts.${label}`), 'utf8')).trim().split('\n').map(Number));
    expect(await max('free')).toBe(3);
    expect(await max('play')).toBe(2);
    expect(await max('task')).toBe(1);
  });
});
