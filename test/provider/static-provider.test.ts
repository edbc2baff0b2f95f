import { describe, expect, it } from 'vitest';
import { StaticProvider } from '../../src/provider/index.js';
import { clusterSpecSchema } from '../../src/spec/schema.js';

const spec = clusterSpecSchema.parse({
  name: 'lab',
  provider: {
    type: 'static',
    hosts: [
      { name: 'cp1', address: '192.0.2.10', group: 'control-plane' },
      { name: 'win1', address: '192.0.2.11', group: 'windows' },
    ],
  },
  nodes: {
    controlPlane: { credentials: { user: 'root', privateKey: { file: '~/.ssh/id_ed25519' } } },
    workers: [
      {
        name: 'windows',
        os: 'windows',
        count: 1,
        credentials: { user: 'Administrator', password: { env: 'WIN_PASSWORD' } },
      },
    ],
  },
});

describe('StaticProvider', () => {
  it('plans the listed machines as the nodes, strict about host keys, and creates nothing', () => {
    const planned = new StaticProvider().plan(spec, [], { versions: {}, clusterDir: '/c' });
    expect(planned.nodes.map((h) => [h.name, h.address, h.os, h.connection, h.hostKeyPolicy])).toEqual([
      ['cp1', '192.0.2.10', 'linux', 'ssh', 'strict'],
      ['win1', '192.0.2.11', 'windows', 'winrm', 'strict'],
    ]);
    expect(planned.createHosts).toBeUndefined();
    expect(planned.prepare.hosts.map((h) => h.name)).toEqual(['localhost']);
  });

  it('leaves the machines in place on teardown and has nothing to inspect', () => {
    const provider = new StaticProvider();
    expect(provider.teardown().tasks).toEqual([]);
    expect(provider.inspect()).toBeUndefined();
  });
});
