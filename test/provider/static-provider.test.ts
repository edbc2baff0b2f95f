import { describe, expect, it } from 'vitest';
import { StaticProvider } from '../../src/provider/index.js';
import type { InventoryHost } from '../../src/types/inventory.js';

const hosts: InventoryHost[] = [
  {
    name: 'cp1',
    address: '192.0.2.10',
    os: 'linux',
    connection: 'ssh',
    role: 'control-plane',
    group: 'control-plane',
  },
  {
    name: 'win1',
    address: '192.0.2.11',
    os: 'windows',
    connection: 'winrm',
    role: 'worker',
    group: 'windows',
  },
];

describe('StaticProvider', () => {
  it('returns the listed hosts from create and list', async () => {
    const provider = new StaticProvider(hosts);
    expect(await provider.create()).toEqual(hosts);
    expect(await provider.list()).toEqual(hosts);
  });

  it('hands out copies, so callers cannot change its inventory', async () => {
    const provider = new StaticProvider(hosts);
    const listed = await provider.list();
    listed[0]!.address = 'changed';
    expect((await provider.list())[0]?.address).toBe('192.0.2.10');
  });

  it('leaves the machines in place on destroy', async () => {
    const provider = new StaticProvider(hosts);
    await provider.destroy();
    expect(await provider.list()).toHaveLength(2);
  });
});
