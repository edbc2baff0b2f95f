import { existsSync, readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/errors/index.js';
import { openEc2Spec } from '../helpers/open-ec2-spec.js';
import { testTempDir } from '../helpers/temp.js';
import { runCli, tempHome } from './run-cli.js';

// Input kubemix used to accept although it cannot work (issue #21 item 11), run as a user runs
// it (dist/): exit 2, one line per problem naming the field or flag, no stack trace, and nothing
// created (no cluster directory, no ci out directory).

/** Runs the CLI with a fresh KUBEMIX_HOME; `created` lists what it left there. */
async function kubemix(args: string[], env: Record<string, string> = {}) {
  const home = tempHome();
  const result = await runCli(args, { home, env });
  const created = existsSync(home) ? readdirSync(home) : [];
  expect(result.stderr, 'no stack trace').not.toMatch(/^\s+at /m);
  return { ...result, created };
}

async function specFile(name: string, text: string): Promise<string> {
  const dir = await testTempDir('bad-input');
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

// Names no environment of a test machine sets.
const PASSWORD_VAR = 'KMX_BAD_INPUT_TEST_PASSWORD';
const staticSpec = (addresses: [string, string, string], missingKey: string) => `name: badinput
provider:
  type: static
  hosts:
    - { name: cp-01, address: ${addresses[0]}, group: control-plane }
    - { name: lin-01, address: ${addresses[1]}, group: linux }
    - name: win-01
      address: ${addresses[2]}
      group: windows
      credentials: { user: Administrator, password: { env: ${PASSWORD_VAR} } }
nodes:
  controlPlane:
    credentials: { user: root, privateKey: { file: ${missingKey} } }
  workers:
    - name: linux
      os: linux
      count: 1
      credentials: { user: root, privateKey: { file: ${missingKey} } }
    - name: windows
      os: windows
      count: 1
`;

describe('two hosts with one address', () => {
  it('is refused by plan and up, naming both hosts and the field', async () => {
    const spec = await specFile(
      'dup.yaml',
      staticSpec(['192.0.2.10', '192.0.2.11', '192.0.2.10'], '/dev/null'),
    );
    for (const command of ['plan', 'up']) {
      const result = await kubemix([command, spec]);
      expect(result.exitCode, result.stderr).toBe(EXIT.badInput);
      expect(result.stderr.trim()).toMatch(
        /^\S+dup\.yaml:\d+:\d+: provider\.hosts\.2\.address: hosts cp-01 and win-01 have the same address 192\.0\.2\.10: /,
      );
      expect(result.created).toEqual([]);
    }
  });
});

describe('a libvirt network too small for the guests', () => {
  it('--network 10.0.0.0/30 is refused with the numbers', async () => {
    const result = await kubemix(['plan', 'k8s-libvirt-1-1-1', '--network', '10.0.0.0/30']);
    expect(result.exitCode, result.stderr).toBe(EXIT.badInput);
    expect(result.stderr.trim()).toBe(
      "k8s-libvirt-1-1-1: --network: 10.0.0.0/30 is too small for 2 guests: kubemix gives the hypervisors' bridges its first 10 host addresses and each guest one after them, so it needs 12 host addresses (a /28 or larger); a /30 has 2",
    );
  });

  it('up refuses it before creating anything', async () => {
    const result = await kubemix(['up', 'k8s-libvirt-1-3-1', '--network', '10.0.0.0/29']);
    expect(result.exitCode, result.stderr).toBe(EXIT.badInput);
    expect(result.stderr).toContain('--network: 10.0.0.0/29 is too small for 4 guests');
    expect(result.created).toEqual([]);
  });
});

describe('--windows-version without Windows workers', () => {
  it('is refused, suggesting --windows-workers', async () => {
    const result = await kubemix(['plan', 'k8s-libvirt-1-1-1', '--windows-version', '2019']);
    expect(result.exitCode, result.stderr).toBe(EXIT.badInput);
    expect(result.stderr.trim()).toBe(
      'k8s-libvirt-1-1-1: --windows-version: the short form has no Windows workers to give Windows Server 2019; add --windows-workers N',
    );
  });
});

describe('ci --history-keep -3', () => {
  it('is refused either way it is written, naming the flag', async () => {
    const separate = await kubemix(['ci', 'k8s-libvirt-1-1-1', '--history-keep', '-3']);
    expect(separate.exitCode).toBe(EXIT.badInput);
    expect(separate.stderr.trim()).toBe(
      'kubemix ci: --history-keep needs a value; one that starts with "-" is written --history-keep=-3',
    );
    const joined = await kubemix(['ci', 'k8s-libvirt-1-1-1', '--history', 'h', '--history-keep=-3']);
    expect(joined.exitCode).toBe(EXIT.badInput);
    expect(joined.stderr.trim()).toBe('--history-keep must be a whole number >= 1, got "-3"');
    expect([...separate.created, ...joined.created]).toEqual([]);
  });
});

describe('an unset password variable and a missing key file', () => {
  async function setup() {
    const dir = await testTempDir('bad-input-credentials');
    const key = join(dir, 'missing-key');
    const spec = await specFile('creds.yaml', staticSpec(['192.0.2.10', '192.0.2.11', '192.0.2.12'], key));
    return { dir, key, spec };
  }
  const lines = (key: string) => [
    `host cp-01: nodes.controlPlane.credentials.privateKey: cannot read file ${key} (no such file)`,
    `host lin-01: nodes.workers.0.credentials.privateKey: cannot read file ${key} (no such file)`,
    `host win-01: provider.hosts.2.credentials.password: environment variable ${PASSWORD_VAR} is not set`,
  ];

  it('up, ci and down refuse with exit 2, one line per host naming the field and the variable or file', async () => {
    const { dir, key, spec } = await setup();
    for (const command of ['up', 'ci', 'down']) {
      const out = join(dir, `out-${command}`);
      const result = await kubemix([command, spec, ...(command === 'ci' ? ['--out', out] : [])]);
      expect(result.exitCode, `${command}: ${result.stderr}`).toBe(EXIT.badInput);
      expect(result.stderr.trim().split('\n'), command).toEqual(lines(key));
      expect(result.created, command).toEqual([]);
      expect(existsSync(out)).toBe(false);
    }
  });

  it('verify refuses for the hosts it connects to (the controller)', async () => {
    const { key, spec } = await setup();
    const result = await kubemix(['verify', spec]);
    expect(result.exitCode, result.stderr).toBe(EXIT.badInput);
    expect(result.stderr.trim()).toBe(lines(key)[0]);
  });

  it('plan prints the same findings as warnings and exits 0', async () => {
    const { key, spec } = await setup();
    const result = await kubemix(['plan', spec]);
    expect(result.exitCode, result.stderr).toBe(EXIT.ok);
    expect(result.stderr.trim().split('\n')).toEqual(lines(key).map((l) => `kubemix: warning: ${l}`));
  });

  it('never prints a password variable that is set, only the key file it cannot read', async () => {
    const { key, spec } = await setup();
    const secret = 'kmx-bad-input-secret-value';
    const result = await kubemix(['up', spec], { [PASSWORD_VAR]: secret });
    expect(result.exitCode).toBe(EXIT.badInput);
    expect(result.stderr.trim().split('\n')).toEqual(lines(key).slice(0, 2));
    expect(`${result.stdout}${result.stderr}`).not.toContain(secret);
  });

  it('run refuses an inventory the same way, naming its variables', async () => {
    const dir = await testTempDir('bad-input-run');
    const key = join(dir, 'missing-key');
    await writeFile(
      join(dir, 'inventory.yml'),
      `all:
  hosts:
    web1: { ansible_host: 192.0.2.20, ansible_ssh_private_key_file: ${key} }
    win1: { ansible_host: 192.0.2.21, ansible_connection: winrm, ansible_user: Administrator, ansible_password_env: ${PASSWORD_VAR} }
`,
    );
    await writeFile(
      join(dir, 'play.yml'),
      '- hosts: all\n  gather_facts: false\n  tasks:\n    - command: "true"\n',
    );
    const result = await kubemix(['run', join(dir, 'play.yml'), '-i', join(dir, 'inventory.yml')]);
    expect(result.exitCode, result.stdout + result.stderr).toBe(EXIT.badInput);
    expect(result.stderr.trim().split('\n')).toEqual([
      `host web1: ansible_ssh_private_key_file: cannot read file ${key} (no such file)`,
      `host win1: ansible_password_env: environment variable ${PASSWORD_VAR} is not set`,
    ]);
  });
});

describe('an EC2 operatorCidr of 0.0.0.0/0', () => {
  const ec2 = openEc2Spec;
  const warning =
    /^kubemix: warning: provider\.operatorCidr: 0\.0\.0\.0\/0 opens SSH, WinRM and the API server \(6443\) of every instance to the whole internet/m;

  it('plan warns on stderr and exits 0', async () => {
    const result = await kubemix(['plan', await specFile('open.yaml', ec2())]);
    expect(result.exitCode, result.stderr).toBe(EXIT.ok);
    expect(result.stderr).toMatch(warning);
  });

  it('up and ci warn before anything else (here they then stop at other bad input)', async () => {
    const spec = await specFile(
      'open-creds.yaml',
      ec2(`\n      credentials: { user: Administrator, password: { env: ${PASSWORD_VAR} } }`),
    );
    const up = await kubemix(['up', spec]);
    expect(up.exitCode, up.stderr).toBe(EXIT.badInput);
    expect(up.stderr).toMatch(warning);
    expect(up.stderr).toContain(
      `host win-01: nodes.workers.0.credentials.password: environment variable ${PASSWORD_VAR}`,
    );
    const out = await testTempDir('bad-input-ci-out');
    await mkdir(join(out, 'taken'));
    const ci = await kubemix(['ci', spec, '--out', out]);
    expect(ci.exitCode, ci.stderr).toBe(EXIT.badInput);
    expect(ci.stderr).toMatch(warning);
  });
});
