import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { startWindowsLab, type WindowsLab } from '../../fixtures/windows-sim/lab.js';
import { type Lab, startLab } from '../../scripts/lab/lab.js';
import { EXIT } from '../../src/errors/index.js';
import { kubemix } from '../e2e/helpers.js';
import { injectionCorpus } from '../helpers/injection-corpus.js';
import { testTempDir } from '../helpers/temp.js';

// `kubemix run` with the injection corpus in Ansible inventory variables: connection variables
// (address, user) are refused with exit 2 and one line naming the variable; other variables
// reach a Linux lab host's shell (quote filter) and a simulated Windows host's PowerShell
// (ansible.windows.quote) as the same text, and the key file is read at its literal path. The
// canary, which any payload that ran would create, never appears (lab hosts share /tmp).
let linux: Lab;
let windows: WindowsLab;
let dir: string;
let canary: string;

beforeAll(async () => {
  linux = await startLab({ count: 1 });
  windows = await startWindowsLab({ hosts: [{ name: 'win-01', windowsVersion: '2022' }] });
  dir = await testTempDir('injection-run');
  canary = join(dir, 'canary');
});

afterAll(async () => {
  await linux?.stop();
  await windows?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

type Hosts = Record<string, Record<string, unknown>>;
type Inventory = { all: { hosts: Hosts; children: { windows: { hosts: Hosts } } } };

function inventory(linuxVars: Record<string, unknown> = {}): Inventory {
  const host = linux.hosts[0]!;
  const win = parse(windows.inventoryYaml('winrm')) as Inventory;
  return {
    all: {
      hosts: {
        [host.name]: {
          ansible_host: host.address,
          ansible_port: host.port ?? 22,
          ansible_user: 'root',
          ansible_ssh_private_key_file: linux.privateKeyPath,
          ansible_ssh_common_args: `-o UserKnownHostsFile=${linux.knownHostsPath}`,
          ...linuxVars,
        },
      },
      children: win.all.children,
    },
  };
}

let files = 0;
async function write(name: string, content: string): Promise<string> {
  const path = join(dir, `${++files}-${name}`);
  await writeFile(path, content);
  return path;
}

const PLAYBOOK = `- hosts: lab-01
  tasks:
    - name: the payload through the shell, into a file named by it
      shell: printf '%s' {{ payload | quote }} > {{ out | quote }}
- hosts: win-01
  tasks:
    - name: a file named by the payload on the simulated disk
      win_file:
        path: "C:/kmx/{{ payload_win }}"
        state: touch
    - name: PowerShell finds it under the name the literal spells
      win_shell: "Test-Path {{ ('C:/kmx/' ~ payload_win) | ansible.windows.quote(shell='powershell') }}"
      register: found
    - assert:
        that: found.stdout | trim == 'True'
`;

describe('kubemix run with the injection corpus in inventory variables', () => {
  it('refuses a payload as a host address or user: exit 2, one line naming the variable', async () => {
    // Variables with {{ }} are templates (as in Ansible), rendered when used: the last test.
    const corpus = injectionCorpus(canary).filter((p) => !p.value.includes('{{'));
    const playbook = await write('play.yml', '- hosts: all\n  tasks:\n    - command: "true"\n');
    for (const [i, payload] of corpus.entries()) {
      const key = i % 2 === 0 ? 'ansible_host' : 'ansible_user';
      const path = await write('inventory.yml', stringify(inventory({ [key]: payload.value })));
      const result = await kubemix(['run', playbook, '-i', path]);
      const lines = result.stderr.trim().split('\n');
      expect(result.exitCode, `${key} ${payload.name}: ${result.stderr}`).toBe(2);
      expect(lines, `${key} ${payload.name}`).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^${path}:\\d+:\\d+: all\\.hosts\\.lab-01\\.${key}: ${key} must `));
      expect(result.stdout).not.toContain('PLAY RECAP');
    }
    expect(existsSync(canary)).toBe(false);
  }, 300_000);

  it('passes other variables literally to the shell and to PowerShell, and reads the key at its literal path', async () => {
    const values = injectionCorpus(canary)
      .map((p) => p.value)
      .filter((v) => !v.includes('\0') && !v.includes('{{'));
    const payload = values.join('');
    // On Windows the name of one file: no path separators, no newline (a Test-Path argument is one line).
    const payloadWin = values
      .join('')
      .replace(/[\\/\r\n]/g, '_')
      .slice(0, 200);
    const out = join(dir, 'out', payload);
    const key = join(dir, 'key', payload);
    await mkdir(dirname(out), { recursive: true });
    await mkdir(dirname(key), { recursive: true });
    await copyFile(linux.privateKeyPath, key);
    const inv = inventory({ ansible_ssh_private_key_file: key, payload, out });
    inv.all.children.windows.hosts['win-01']!['payload_win'] = payloadWin;
    const path = await write('inventory.yml', stringify(inv));
    const playbook = await write('play.yml', PLAYBOOK);
    const result = await kubemix(['run', playbook, '-i', path]);
    expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(await readFile(out, 'utf8')).toBe(payload);
    expect(windows.host('win-01').fs.exists(`C:/kmx/${payloadWin}`)).toBe(true);
    expect(existsSync(canary)).toBe(false);
  }, 300_000);

  it('renders a variable holding a template, but a template cannot reach Function: the task fails, nothing runs', async () => {
    const templateEscape = injectionCorpus(canary).find(
      (p) => p.name === 'nunjucks escape to Function',
    )!.value;
    const out = join(dir, 'escape-out');
    const path = await write('inventory.yml', stringify(inventory({ payload: templateEscape, out })));
    const playbook = await write('play.yml', PLAYBOOK.split('- hosts: win-01')[0]!);
    const result = await kubemix(['run', playbook, '-i', path]);
    expect(result.exitCode).toBe(EXIT.failed);
    expect(result.stdout).toContain('templates cannot read "constructor"');
    expect(existsSync(out)).toBe(false);
    expect(existsSync(canary)).toBe(false);
  }, 120_000);
});
