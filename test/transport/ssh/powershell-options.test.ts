import { describe, expect, it } from 'vitest';
import { sshOptionsFor } from '../../../src/executor/ssh-options.js';
import { parseInventory } from '../../../src/playbook/index.js';

describe('PowerShell mode selection', () => {
  it('is chosen for Windows hosts reached over SSH, not for Linux hosts', () => {
    const inventory = parseInventory(
      [
        'all:',
        '  hosts:',
        '    win1: { ansible_host: 10.0.0.5, ansible_connection: ssh, ansible_shell_type: powershell }',
        '    win2: { ansible_host: 10.0.0.6, kubemix_os: windows }',
        '    lin1: { ansible_host: 10.0.0.7 }',
      ].join('\n'),
      'inline.yml',
    );
    const shells = Object.fromEntries(inventory.hosts.map((h) => [h.name, sshOptionsFor(h).remoteShell]));
    expect(shells).toEqual({ win1: 'powershell', win2: 'powershell', lin1: undefined });
  });
});
