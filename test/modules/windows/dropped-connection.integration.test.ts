import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWindowsLab, type WindowsLab } from '../../../fixtures/windows-sim/lab.js';
import { createTransport } from '../../../src/executor/create-transport.js';
import { parseInventory, parsePlaybook, runPlaybook } from '../../../src/playbook/index.js';

// win_command items against a simulated Windows host whose WinRM server closes the connection
// without answering every Nth request (NTLM legs and SOAP actions alike), as HTTP.sys and proxies
// do to idle keep-alive connections. Requests that are safe to repeat are repeated on a new
// connection; a Command whose answer was lost fails, saying it is unknown whether it ran.
let lab: WindowsLab;

beforeAll(async () => {
  lab = await startWindowsLab({ hosts: [{ name: 'win-drops' }] });
});

afterAll(async () => {
  await lab?.stop();
});

const ITEMS = 10;
const PLAYBOOK = parsePlaybook(`
- hosts: windows
  gather_facts: false
  tasks:
    - name: hostname, ${ITEMS} times
      win_command: hostname
      loop: "{{ range(${ITEMS}) | list }}"
      register: out
      ignore_errors: true
    - set_fact:
        items: "{{ out.results }}"
`);

/** Runs the playbook while the server drops every `n`th request; the items' outcomes and the server's counts. */
async function runDropping(n: number) {
  const server = lab.server('win-drops');
  const before = { ...server.stats.dropped };
  const commands = server.stats.requests['Command'] ?? 0;
  server.controls.dropEvery = n;
  try {
    const result = await runPlaybook({
      playbook: PLAYBOOK,
      inventory: parseInventory(lab.inventoryYaml('winrm'), 'winrm.yml'),
      transports: createTransport,
    });
    const items = (result.facts['win-drops']?.['items'] ?? []) as {
      stdout: string;
      stderr: string;
      failed: boolean;
    }[];
    const facts = {
      stdout: items.map((i) => i.stdout),
      stderr: items.map((i) => i.stderr),
      failed: items.map((i) => i.failed),
    };
    const dropped: Record<string, number> = {};
    for (const [action, count] of Object.entries(server.stats.dropped))
      if (count - (before[action] ?? 0) > 0) dropped[action] = count - (before[action] ?? 0);
    return { result, facts, dropped, commands: (server.stats.requests['Command'] ?? 0) - commands };
  } finally {
    server.controls.dropEvery = undefined;
  }
}

const REPEATABLE = ['ntlm-negotiate', 'ntlm-authenticate', 'Create', 'Receive', 'Signal', 'Delete'];

describe('win_command over a WinRM connection that is dropped every Nth request', () => {
  it('every 20th request: all items succeed, each run once', async () => {
    const { result, facts, dropped, commands } = await runDropping(20);
    expect(result.stats['win-drops']).toMatchObject({ failed: 0, unreachable: 0, ignored: 0 });
    expect(facts.failed).toEqual(Array(ITEMS).fill(false));
    expect(facts.stdout).toEqual(Array(ITEMS).fill('win-drops'));
    expect(commands).toBe(ITEMS);
    expect(Object.keys(dropped).length).toBeGreaterThan(0);
    for (const action of Object.keys(dropped)) expect(REPEATABLE).toContain(action);
  });

  it('every 4th..19th request: only the items whose Command was dropped fail, saying so; none runs twice', async () => {
    const seen: Record<string, number> = {};
    for (let n = 4; n <= 19; n++) {
      const { facts, dropped, commands } = await runDropping(n);
      for (const [action, count] of Object.entries(dropped)) seen[action] = (seen[action] ?? 0) + count;
      const failures = facts.failed.filter(Boolean).length;
      expect(failures, `every ${n}th: ${JSON.stringify(dropped)}`).toBe(dropped['Command'] ?? 0);
      facts.failed.forEach((failed, i) => {
        if (failed)
          expect(facts.stderr[i]).toMatch(
            /lost before the Command was answered: it is unknown whether the command ran/,
          );
        else expect(facts.stdout[i]).toBe('win-drops');
      });
      expect(commands, `every ${n}th`).toBe(ITEMS);
    }
    // The sweep dropped every kind of request at least once.
    expect(Object.keys(seen).sort(), JSON.stringify(seen)).toEqual([...REPEATABLE, 'Command'].sort());
  });
});
