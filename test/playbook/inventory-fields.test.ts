import { describe, expect, it } from 'vitest';
import { SpecError } from '../../src/errors/index.js';
import { parseInventory } from '../../src/playbook/inventory.js';

const issues = (text: string) => {
  try {
    parseInventory(text, 'inv.yml');
    return [];
  } catch (error) {
    if (error instanceof SpecError) return error.issues.map((i) => `${i.path}: ${i.message}`);
    throw error;
  }
};

describe('inventory connection variables', () => {
  it('takes addresses, users and variable names of the documented forms', () => {
    expect(
      issues(
        [
          'all:',
          '  hosts:',
          '    a: { ansible_host: 10.0.0.5, ansible_user: ubuntu }',
          '    b: { ansible_host: "fd00::5", ansible_user: "CORP\\\\alice", ansible_password_env: WIN_PASS }',
          '    c: { ansible_host: node-3.lab.example, ansible_user: alice@corp.example.com }',
          "    d: { ansible_host: \"{{ lookup('env', 'NODE_D') }}\" }",
        ].join('\n'),
      ),
    ).toEqual([]);
  });

  it('refuses anything else with the variable named, the value never repeated', () => {
    expect(
      issues(
        [
          'all:',
          '  hosts:',
          '    a: { ansible_host: "1.2.3.4; touch /tmp/p" }',
          '    b: { ansible_user: "root$(id)" }',
          '    c: { ansible_password_env: "PASS; x" }',
          '    d: { ansible_become_user: "-oProxyCommand=x" }',
        ].join('\n'),
      ),
    ).toEqual([
      'all.hosts.a.ansible_host: ansible_host must be an IPv4 or IPv6 address or a DNS name (letters, digits, "-" and ".")',
      'all.hosts.b.ansible_user: ansible_user must be a user name: letters, digits, ".", "_", "-" (not first), or a Windows account as name, DOMAIN\\name or name@domain',
      'all.hosts.c.ansible_password_env: ansible_password_env must be an environment variable name (letters, digits and _, not starting with a digit)',
      'all.hosts.d.ansible_become_user: ansible_become_user must be a user name: letters, digits, ".", "_", "-" (not first), or a Windows account as name, DOMAIN\\name or name@domain',
    ]);
  });
});
