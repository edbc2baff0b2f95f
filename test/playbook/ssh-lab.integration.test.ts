import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { type Lab, labScriptPath, startLab } from '../../scripts/lab/lab.js';
import { EXIT } from '../../src/errors/index.js';
import { createTransport } from '../../src/executor/create-transport.js';
import { loadInventory, parseInventory, parsePlaybook, runPlaybook } from '../../src/playbook/index.js';
import type { RunEvent } from '../../src/types/events.js';
import { waitFor } from '../engine/helpers.js';
import { testTempDirSync } from '../helpers/temp.js';

// Playbooks over the real SSH transport on real sshd lab hosts: what ansible-playbook users
// expect from `kubemix run`.
let lab: Lab;

beforeAll(async () => {
  lab = await startLab({ count: 3 });
});

afterAll(async () => {
  await lab?.stop();
});

const playbook = (text: string) => parsePlaybook(text, join(tmpdir(), 'inline.yml'));

describe('playbooks on SSH lab hosts', () => {
  it('runs the every-keyword playbook on three hosts', async () => {
    const work = testTempDirSync('lab-play');
    // The fixture expects the local inventory's `greeting` var and `web` group: give the lab the same.
    const doc = parse(readFileSync(lab.inventoryPath, 'utf8')) as {
      all: { vars: Record<string, unknown>; children?: Record<string, unknown> };
    };
    doc.all.vars['greeting'] = 'hello';
    doc.all.children = { ...doc.all.children, web: { hosts: { 'lab-01': null, 'lab-02': null } } };
    const inventory = parseInventory(stringify(doc), lab.inventoryPath);
    const result = await runPlaybook({
      playbook: 'fixtures/playbooks/every-keyword.yml',
      inventory,
      extraVars: { work_dir: work, wait_host: '{{ ansible_host }}', wait_port: 22 },
      transports: createTransport,
    });
    const failures = result.records.filter(
      (r) => (r.status === 'failed' && !r.ignored) || r.status === 'unreachable',
    );
    expect(failures).toEqual([]);
    expect(result.exitCode).toBe(0);
    expect(Object.keys(result.stats)).toEqual(['lab-01', 'lab-02', 'lab-03']);
    for (const stats of Object.values(result.stats)) {
      expect(stats.failed).toBe(0);
      expect(stats.changed).toBeGreaterThan(0);
    }
  });

  it('reports an unreachable host while the others finish (exit 1)', async () => {
    const inventory = parseInventory(
      `all:\n  hosts:\n    lab-01:\n      ansible_host: ${lab.hosts[0]!.address}\n      ansible_user: root\n      ansible_ssh_private_key_file: ${lab.privateKeyPath}\n      ansible_ssh_common_args: '-o UserKnownHostsFile=${lab.knownHostsPath}'\n    ghost:\n      ansible_host: 127.0.0.1\n      ansible_port: 1\n      ansible_user: root\n      ansible_ssh_private_key_file: ${lab.privateKeyPath}\n`,
      'ghost.yml',
    );
    const events: RunEvent[] = [];
    const result = await runPlaybook({
      playbook: playbook('- hosts: all\n  tasks:\n    - command: hostname\n    - command: "true"\n'),
      inventory,
      transports: createTransport,
      onEvent: (e) => events.push(e),
    });
    expect(result.exitCode).toBe(EXIT.failed);
    expect(result.stats['ghost']?.unreachable).toBe(1);
    expect(result.stats['lab-01']).toMatchObject({ ok: 2, failed: 0, unreachable: 0 });
    const unreachable = events.find((e) => e.type === 'host-unreachable');
    expect(unreachable && 'message' in unreachable ? unreachable.message : '').toMatch(
      /ghost.*(refused|ECONNREFUSED)/i,
    );
  });

  it('refuses a host whose key does not match known_hosts, naming both fingerprints', async () => {
    const work = testTempDirSync('lab-keys');
    const other = lab.hosts[1]!;
    // known_hosts that claims lab-01's address carries lab-02's key.
    const lines = readFileSync(lab.knownHostsPath, 'utf8').split('\n').filter(Boolean);
    const otherKey = lines.find((l) =>
      l
        .split(' ')[0]!
        .split(',')
        .some((n) => n.includes(other.address)),
    )!;
    const target = lab.hosts[0]!;
    const forged = join(work, 'known_hosts');
    writeFileSync(forged, `${target.address} ${otherKey.split(' ').slice(1).join(' ')}\n`);
    const inventory = parseInventory(
      `all:\n  hosts:\n    lab-01:\n      ansible_host: ${target.address}\n      ansible_user: root\n      ansible_ssh_private_key_file: ${lab.privateKeyPath}\n      ansible_ssh_common_args: '-o UserKnownHostsFile=${forged}'\n`,
      'forged.yml',
    );
    const events: RunEvent[] = [];
    const result = await runPlaybook({
      playbook: playbook('- hosts: all\n  tasks:\n    - command: "true"\n'),
      inventory,
      transports: createTransport,
      onEvent: (e) => events.push(e),
    });
    expect(result.exitCode).toBe(EXIT.failed);
    const message = JSON.stringify(events.filter((e) => e.type === 'host-unreachable'));
    expect(message).toMatch(/SHA256:[A-Za-z0-9+/]+.*SHA256:[A-Za-z0-9+/]+/);
  });

  it('reaches a host through another lab host as a jump host', async () => {
    const [jump, target] = [lab.hosts[0]!, lab.hosts[2]!];
    const inventory = parseInventory(
      `all:\n  hosts:\n    lab-03:\n      ansible_host: ${target.address}\n      ansible_user: root\n      ansible_ssh_private_key_file: ${lab.privateKeyPath}\n      ansible_ssh_common_args: '-o UserKnownHostsFile=${lab.knownHostsPath} -J root@${jump.address}'\n`,
      'jump.yml',
    );
    const events: RunEvent[] = [];
    const result = await runPlaybook({
      playbook: playbook(
        '- hosts: all\n  tasks:\n    - command: hostname\n      register: name\n    - assert:\n        that: name.stdout == "lab-03"\n',
      ),
      inventory,
      transports: createTransport,
      onEvent: (e) => events.push(e),
    });
    expect(result.exitCode).toBe(0);
    expect(result.stats['lab-03']).toMatchObject({ ok: 2, failed: 0 });
  });

  it('reconnects for the next step when sshd was killed and restarted between steps', async () => {
    const log = join(lab.dir, 'hosts', 'lab-03', 'sshd.log');
    const logins = () =>
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l.includes('Accepted publickey')).length;
    const before = logins();
    const events: RunEvent[] = [];
    const result = await runPlaybook({
      playbook: playbook(
        [
          '- hosts: lab-03',
          '  tasks:',
          '    - command: hostname',
          '    - name: sshd and every session of lab-03 are killed, then sshd starts again',
          '      command: bash {{ lab_sh }} kill-host {{ lab_dir }} lab-03',
          '      delegate_to: localhost',
          '    - command: bash {{ lab_sh }} start-host {{ lab_dir }} lab-03',
          '      delegate_to: localhost',
          '    - name: next step',
          '      command: hostname',
          '      register: after',
          '',
        ].join('\n'),
      ),
      inventory: await loadInventory(lab.inventoryPath),
      extraVars: { lab_sh: labScriptPath(), lab_dir: lab.dir },
      transports: createTransport,
      onEvent: (e) => events.push(e),
    });
    expect(result.records.filter((r) => r.status === 'failed')).toEqual([]);
    expect(result.exitCode).toBe(0);
    // No retry hid anything: the step ran once, on a new connection.
    expect(events.filter((e) => e.type === 'step-retry')).toEqual([]);
    expect(logins()).toBe(before + 2);
  });

  it('recovers when sshd is killed and restarted mid-play (reconnect + retry)', async () => {
    const host = lab.hosts[1]!;
    const inventory = await loadInventory(lab.inventoryPath);
    const events: RunEvent[] = [];
    // The long step's first attempt leaves a file on this machine (lab hosts share its /tmp).
    const marker = join(testTempDirSync('lab-kill'), 'started');
    const run = runPlaybook({
      playbook: playbook(
        `- hosts: lab-02\n  tasks:\n    - command: "true"\n    - name: long step\n      shell: test -e ${marker} || { touch ${marker}; sleep 3; }; echo done\n      register: long\n      until: long.rc == 0\n      retries: 5\n      delay: 1\n    - command: hostname\n`,
      ),
      inventory,
      transports: createTransport,
      onEvent: (e) => events.push(e),
    });
    // Kill the host while the long step's command runs (its file is there), then bring it back.
    await waitFor(() => existsSync(marker), 60_000, 'the long step to start');
    await lab.killHost(host.name);
    await lab.startHost(host.name);
    const result = await run;
    expect(events.some((e) => e.type === 'step-retry' && e.task === 'long step')).toBe(true);
    expect(result.exitCode).toBe(0);
    expect(result.stats['lab-02']).toMatchObject({ failed: 0, unreachable: 0 });
  });
});
