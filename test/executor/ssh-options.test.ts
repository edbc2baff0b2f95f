import { describe, expect, it } from 'vitest';
import { sshOptionsFor } from '../../src/executor/ssh-options.js';
import type { InventoryHost } from '../../src/types/inventory.js';

const host = (vars: Record<string, unknown>): InventoryHost => ({
  name: 'cp1',
  address: '192.0.2.10',
  os: 'linux',
  connection: 'ssh',
  role: 'control-plane',
  group: 'control-plane',
  vars,
});

describe('known_hosts files of an SSH host', () => {
  it("takes a spec's one path as it is, spaces and all", () => {
    const path = '/home/ci/My Keys/known hosts';
    expect(sshOptionsFor(host({ kubemix_known_hosts: [path] })).knownHostsFiles).toEqual([path]);
  });

  it("splits an inventory string the way OpenSSH's UserKnownHostsFile does", () => {
    expect(
      sshOptionsFor(host({ kubemix_known_hosts: '/a/known_hosts /b/known_hosts' })).knownHostsFiles,
    ).toEqual(['/a/known_hosts', '/b/known_hosts']);
    expect(
      sshOptionsFor(host({ ansible_ssh_common_args: '-o UserKnownHostsFile=/c/known_hosts' }))
        .knownHostsFiles,
    ).toEqual(['/c/known_hosts']);
  });
});
