import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SecretRefError } from '../../src/errors/index.js';
import { sshOptionsFor } from '../../src/executor/ssh-options.js';
import { winrmOptionsFor } from '../../src/executor/winrm-options.js';
import { resolveConnectionSecrets } from '../../src/playbook/connection-secrets.js';
import { parseInventory } from '../../src/playbook/index.js';
import { testTempDir } from '../helpers/temp.js';

afterEach(() => {
  delete process.env['KMX_PW_WIN'];
  delete process.env['KMX_PW_REF'];
});

const INLINE = `all:
  vars:
    ansible_become_password: b3come
  hosts:
    web1:
      ansible_ssh_pass: 1234
  children:
    windows:
      vars: { ansible_connection: winrm, ansible_user: Administrator }
      hosts:
        win1: { ansible_password: W1n-pass }
        win2: { ansible_winrm_password: "{{ lookup('env', 'KMX_PW_WIN') }}" }
`;

describe('inline passwords in an inventory', () => {
  it('are accepted with one warning line naming where they are and the reference forms, never the values', () => {
    const inventory = parseInventory(INLINE, 'site.yml');
    expect(inventory.warnings).toEqual([
      `site.yml: warning: inline password in all.vars.ansible_become_password, all.hosts.web1.ansible_ssh_pass, all.children.windows.hosts.win1.ansible_password: anyone who can read the file can read it; use ansible_become_password_env: VAR / ansible_become_password_file: PATH, ansible_password_env: VAR / ansible_password_file: PATH or "{{ lookup('env', 'VAR') }}" instead`,
    ]);
    expect(inventory.warnings?.join('')).not.toMatch(/b3come|1234|W1n-pass/);
    expect(
      parseInventory("all:\n  vars:\n    ansible_password: \"{{ lookup('env', 'X') }}\"\n").warnings,
    ).toBe(undefined);
  });

  it('resolve for each host as Ansible reads them: inline, looked up, the last alias set wins', () => {
    process.env['KMX_PW_WIN'] = 'from-env';
    const inventory = parseInventory(INLINE, 'site.yml');
    const { byHost, values } = resolveConnectionSecrets(inventory.hosts);
    expect(byHost.get('web1')).toEqual({ password: '1234', becomePassword: 'b3come' });
    expect(byHost.get('win1')).toEqual({ password: 'W1n-pass', becomePassword: 'b3come' });
    expect(byHost.get('win2')).toEqual({ password: 'from-env', becomePassword: 'b3come' });
    expect(values.sort()).toEqual(['1234', 'W1n-pass', 'b3come', 'from-env']);
    const both = parseInventory(
      'all:\n  hosts:\n    h: { ansible_become_pass: second, ansible_become_password: first }\n',
    );
    // become/sudo.py lists ansible_become_password, ansible_become_pass, ansible_sudo_pass: the last set wins.
    expect(resolveConnectionSecrets(both.hosts).byHost.get('h')).toEqual({ becomePassword: 'second' });
  });

  it('follow other variables and read files relative to the playbook, and the references are hidden too', async () => {
    const dir = await testTempDir('inventory-pw');
    await writeFile(join(dir, 'become.txt'), 'from-file\n');
    await writeFile(join(dir, 'winrm.txt'), 'ref-file\n');
    process.env['KMX_PW_REF'] = 'ref-env';
    const inventory = parseInventory(
      [
        'all:',
        '  hosts:',
        `    h1: { vault_pw: v4ult, ansible_password: "{{ vault_pw }}", ansible_become_password: "{{ lookup('file', 'become.txt') }}" }`,
        `    h2: { ansible_connection: winrm, ansible_password_file: ${join(dir, 'winrm.txt')}, ansible_become_password_env: KMX_PW_REF }`,
        "    local1: { ansible_connection: local, ansible_password: \"{{ lookup('env', 'KMX_UNSET_X') }}\" }",
      ].join('\n'),
    );
    const { byHost, values } = resolveConnectionSecrets(inventory.hosts, { playbookDir: dir });
    expect(byHost.get('h1')).toEqual({ password: 'v4ult', becomePassword: 'from-file' });
    expect(byHost.has('h2')).toBe(false);
    expect(values.sort()).toEqual(['from-file', 'ref-env', 'ref-file', 'v4ult']);
  });

  it('stop with one line naming host, variable and the unset environment variable', () => {
    const inventory = parseInventory(
      "all:\n  hosts:\n    lab-01: { ansible_become_password: \"{{ lookup('env', 'KMX_PW_MISSING') }}\" }\n",
    );
    const resolve = () => resolveConnectionSecrets(inventory.hosts);
    expect(resolve).toThrow(SecretRefError);
    expect(resolve).toThrow(
      "lab-01: ansible_become_password: lookup('env', 'KMX_PW_MISSING'): environment variable KMX_PW_MISSING is not set",
    );
  });

  it('reach the transports: SSH login and sudo passwords, the WinRM password; references win', () => {
    process.env['KMX_PW_WIN'] = 'from-env';
    const inventory = parseInventory(INLINE, 'site.yml');
    const [web1, win1] = [inventory.hosts[0]!, inventory.hosts[1]!];
    const secrets = resolveConnectionSecrets(inventory.hosts).byHost;
    expect(sshOptionsFor(web1, {}, secrets.get('web1'))).toMatchObject({
      password: '1234',
      becomePassword: 'b3come',
    });
    expect(winrmOptionsFor(win1, secrets.get('win1'))).toMatchObject({
      user: 'Administrator',
      password: 'W1n-pass',
    });
    const refs = parseInventory(
      'all:\n  hosts:\n    h: { ansible_password: inline, ansible_password_env: KMX_PW_REF, ansible_become_password_file: /pw }\n',
    );
    const h = refs.hosts[0]!;
    expect(sshOptionsFor(h, {}, { password: 'inline', becomePassword: 'x' })).toMatchObject({
      password: { env: 'KMX_PW_REF' },
      becomePassword: { file: '/pw' },
    });
  });
});
