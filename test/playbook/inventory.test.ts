import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SpecError } from '../../src/errors/index.js';
import {
  expandHostRange,
  groupsOfHost,
  parseInventory,
  resolveHostPattern,
} from '../../src/playbook/index.js';
import { FIXTURES } from './helpers.js';

const load = async (name: string) => {
  const path = join(FIXTURES, 'inventories', name);
  return { text: await readFile(path, 'utf8'), path };
};

describe('parseInventory', () => {
  it('maps Ansible connection variables onto InventoryHost', async () => {
    const { text, path } = await load('lab.yml');
    const inventory = parseInventory(text, path);
    expect(inventory.hosts.map((h) => h.name)).toEqual(['cp1', 'worker01', 'worker02', 'worker03', 'win1']);
    const cp1 = inventory.hosts[0]!;
    expect(cp1).toMatchObject({
      name: 'cp1',
      address: '10.10.0.10',
      os: 'linux',
      connection: 'ssh',
      role: 'control-plane',
      group: 'control_plane',
      credentials: { user: 'root', privateKey: { file: '~/.ssh/lab_key' } },
    });
    expect(cp1.vars).toMatchObject({ node_role: 'control-plane', ansible_user: 'root' });
    const win = inventory.hosts.find((h) => h.name === 'win1')!;
    expect(win).toMatchObject({
      os: 'windows',
      connection: 'winrm',
      port: 5985,
      credentials: { user: 'Administrator', password: { env: 'WIN_PASSWORD' } },
    });
    expect(inventory.hosts[1]).toMatchObject({ address: 'worker01', group: 'linux_workers', role: 'worker' });
    expect(groupsOfHost(inventory, 'worker02')).toEqual(['k8s', 'linux_workers']);
    expect(inventory.groupVars['linux_workers']).toEqual({ node_role: 'worker' });
  });

  it('reports every problem with file, path and line:column, never an inline password', async () => {
    const { text, path } = await load('invalid.yml');
    let error: SpecError | undefined;
    try {
      parseInventory(text, path);
    } catch (e) {
      error = e as SpecError;
    }
    expect(error).toBeInstanceOf(SpecError);
    const issues = error!.issues.map((i) => `${i.line}:${i.column} ${i.path}: ${i.message}`);
    expect(issues).toEqual([
      '5:21 all.hosts.bad1.ansible_port: ansible_port must be a port number (1-65535)',
      '8:7 all.children.web.host: unknown group key "host" (expected hosts, vars or children)',
      '13:31 all.children.db.hosts.db1.ansible_connection: ansible_connection "telnet" is not supported (use ssh, local, winrm or psrp)',
    ]);
    expect(error!.message).not.toContain('hunter2');
    expect(error!.exitCode).toBe(2);
  });

  it('expands host ranges', () => {
    expect(expandHostRange('web[1:3]')).toEqual(['web1', 'web2', 'web3']);
    expect(expandHostRange('db-[a:c].lab')).toEqual(['db-a.lab', 'db-b.lab', 'db-c.lab']);
    expect(expandHostRange('n[00:10:5]')).toEqual(['n00', 'n05', 'n10']);
  });
});

describe('resolveHostPattern', () => {
  it('resolves groups, unions, intersections, exclusions, wildcards and regexes', async () => {
    const { text } = await load('lab.yml');
    const inventory = parseInventory(text);
    const hosts = (p: string) => resolveHostPattern(inventory, p).hosts;
    expect(hosts('all')).toEqual(['cp1', 'worker01', 'worker02', 'worker03', 'win1']);
    expect(hosts('k8s')).toEqual(['cp1', 'worker01', 'worker02', 'worker03']);
    expect(hosts('control_plane:windows')).toEqual(['cp1', 'win1']);
    expect(hosts('k8s:!control_plane')).toEqual(['worker01', 'worker02', 'worker03']);
    expect(hosts('k8s:&linux_workers:!worker02')).toEqual(['worker01', 'worker03']);
    expect(hosts('worker0*')).toEqual(['worker01', 'worker02', 'worker03']);
    expect(hosts('~worker0[13]')).toEqual(['worker01', 'worker03']);
    expect(hosts('cp1,win1')).toEqual(['cp1', 'win1']);
    expect(resolveHostPattern(inventory, 'nothing:cp1')).toEqual({ hosts: ['cp1'], unmatched: ['nothing'] });
  });
});
