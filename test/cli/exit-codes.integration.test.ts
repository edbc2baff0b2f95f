import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/errors/index.js';
import { testTempDir } from '../helpers/temp.js';
import { COMMANDS, runCli, tempHome } from './run-cli.js';

// Each command's failure kinds, run as a user runs them, against the one table (EXIT_CODES).
// `ci`'s timed out (3) and left behind (4) need a cluster: test/e2e/ci.integration.test.ts.

const twoLocalHosts = `all:
  hosts:
    h1: { ansible_connection: local }
    h2: { ansible_connection: local }
`;

async function files(playbook: string, inventory = twoLocalHosts) {
  const dir = await testTempDir('exit-codes');
  await writeFile(join(dir, 'play.yml'), playbook);
  await writeFile(join(dir, 'inventory.yml'), inventory);
  return { playbook: join(dir, 'play.yml'), inventory: join(dir, 'inventory.yml') };
}

describe('exit codes', () => {
  it('kubemix --help prints the table', async () => {
    const result = await runCli(['--help'], { home: tempHome() });
    expect(result.exitCode).toBe(EXIT.ok);
    const table = result.stdout.slice(result.stdout.indexOf('Exit codes'));
    for (const [code, word] of [
      [0, 'done'],
      [1, 'failed'],
      [2, 'bad input'],
      [3, 'time budget ran out'],
      [130, 'interrupted'],
    ] as const)
      expect(table).toMatch(new RegExp(`^ +${code}  .*${word}`, 'm'));
  });

  it('run: a failed host exits 1 (ansible-playbook would exit 2)', async () => {
    const { playbook, inventory } = await files(`- hosts: all
  tasks:
    - name: fails on h2
      fail: { msg: boom }
      when: inventory_hostname == 'h2'
`);
    const result = await runCli(['run', playbook, '-i', inventory], { home: tempHome() });
    expect(result.exitCode).toBe(EXIT.failed);
    expect(result.stdout).toMatch(/^h2 +: ok=0 .* failed=1 /m);
  });

  it('run: an unreachable host exits 1 (ansible-playbook would exit 4)', async () => {
    // Port 1 on loopback: nothing listens there, the connection is refused at once.
    const { playbook, inventory } = await files(
      '- hosts: all\n  tasks:\n    - command: "true"\n',
      'all:\n  hosts:\n    gone: { ansible_host: 127.0.0.1, ansible_port: 1, ansible_user: nobody }\n',
    );
    const result = await runCli(['run', playbook, '-i', inventory], { home: tempHome() });
    expect(result.exitCode).toBe(EXIT.failed);
    expect(result.stdout).toMatch(/^gone +: .* unreachable=1 /m);
  });

  it('run: Ctrl-C once a task has started exits 130 (ansible-playbook would exit 99)', async () => {
    const { playbook, inventory } = await files(`- hosts: h1
  tasks:
    - name: wait for ever
      command: tail -f /dev/null
`);
    const child = runCli(['run', playbook, '-i', inventory], { home: tempHome() });
    // The plain renderer prints START when the task begins: interrupt then, not after a guess.
    await new Promise<void>((resolve) => {
      let seen = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes('START wait for ever')) resolve();
      });
    });
    child.kill('SIGINT');
    const result = await child;
    expect(result.exitCode).toBe(EXIT.interrupted);
    expect(result.stderr).toContain('interrupted');
  });

  it('run: bad input exits 2 — an invalid playbook, an unknown flag, a missing inventory', async () => {
    const invalid = await runCli(
      ['run', 'fixtures/playbooks/invalid.yml', '-i', 'fixtures/inventories/local.yml'],
      {
        home: tempHome(),
      },
    );
    expect(invalid.exitCode).toBe(EXIT.badInput);
    const flag = await runCli(['run', 'fixtures/playbooks/every-keyword.yml', '--forkz', '3'], {
      home: tempHome(),
    });
    expect(flag.exitCode).toBe(EXIT.badInput);
    const missing = await runCli(['run', 'fixtures/playbooks/every-keyword.yml'], { home: tempHome() });
    expect(missing.exitCode).toBe(EXIT.badInput);
  });

  it('every command exits 2 on an unknown flag, and kubemix on an unknown command', async () => {
    for (const command of COMMANDS) {
      const result = await runCli([command, '--no-such-flag'], { home: tempHome() });
      expect([command, result.exitCode]).toEqual([command, EXIT.badInput]);
    }
    expect((await runCli(['frobnicate'], { home: tempHome() })).exitCode).toBe(EXIT.badInput);
  });
});
