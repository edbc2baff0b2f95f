import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { upKilledAt, useMoto } from './harness.js';

// `kubemix up` / `down` on an EC2 spec, the way a user runs them, against moto behind the
// fault proxy. The runs stop after create-hosts: moto's instances are not machines.
const moto = useMoto();

const cluster = (name: string, options: { windows?: number; region?: string | null } = {}) =>
  moto.cliCluster({
    name,
    linuxWorkers: 2,
    ...(options.windows === undefined ? {} : { windowsWorkers: options.windows }),
    ...(options.region === undefined ? {} : { region: options.region }),
  });

interface State {
  resources: { kind: string; name: string; details?: Record<string, string> }[];
}

describe('kubemix up/down on EC2 (moto)', () => {
  it('up to create-hosts records the hosts, keeps the passwords in secrets.json only, and down leaves nothing', async () => {
    const { spec, cli, proxy, home } = await cluster('cli-up');
    const up = await cli(['up', spec, '--stop-after', 'create-hosts']);
    expect(up.exitCode, up.stderr).toBe(0);
    expect(await moto.tagged('cli-up', 'Instance')).toHaveLength(4);
    // status: every recorded resource with EC2's id for it, and that it exists (asked of EC2 by tag).
    const status = await cli(['status', spec]);
    expect(status.exitCode, status.stderr).toBe(0);
    const dir = join(home, 'clusters', 'cli-up');
    const { readFileSync } = await import('node:fs');
    const recorded = (JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as State).resources;
    const idOf = (kind: string, name: string) =>
      recorded.find((r) => r.kind === kind && r.name === name)?.details?.['id'] ?? 'none recorded';
    const tagged = (await moto.tagged('cli-up')).join('\n');
    for (const [kind, name, shown] of [
      ['vpc', 'vpc', 'vpc'],
      ['subnet', 'subnet', 'subnet'],
      ['security-group', 'security-group', 'security-group'],
      ['instance', 'win-01', 'instance win-01'],
      ['instance', 'linux-02', 'instance linux-02'],
    ] as const) {
      const id = idOf(kind, name);
      // The id is EC2's: moto lists it among the cluster's tagged resources.
      expect(tagged).toContain(id);
      expect(status.stdout).toContain(`eu-west-1  ${shown} ${id}  recorded created  exists`);
    }
    expect(status.stdout).toMatch(/eu-west-1 {2}key-pair \S+ {2}recorded created {2}exists/);
    const password = [...proxy.windowsPasswords.values()][0]!;
    const secrets = readFileSync(join(dir, 'secrets.json'), 'utf8');
    expect(secrets).toContain(password);
    for (const file of [
      'state.json',
      ...(await import('node:fs')).readdirSync(join(dir, 'runs')).map((f) => join('runs', f)),
    ])
      expect(readFileSync(join(dir, file), 'utf8'), file).not.toContain(password);
    expect(up.stdout + up.stderr).not.toContain(password);
    const down = await cli(['down', spec]);
    expect(down.exitCode, down.stderr).toBe(0);
    expect(await moto.tagged('cli-up')).toEqual([]);
    // After down, status says so (and lists no resource: nothing is left).
    const after = await cli(['status', spec]);
    expect(after.exitCode, after.stderr).toBe(0);
    expect(after.stdout).toMatch(/^torn down at \S+ \(kubemix down\)/m);
    expect(after.stdout).not.toContain('resources:');
    expect(after.stdout).not.toContain('pending');
  });

  it.each([
    ['RunInstances', 1],
    ['RunInstances', 2],
    ['CreateSubnet', 1],
    ['ImportKeyPair', 1],
  ])(
    'SIGKILL while EC2 works on %s (#%i): resume creates no duplicates, down leaves nothing',
    async (action, nth) => {
      const name = `kill-${action.toLowerCase()}-${nth}`;
      const c = await cluster(name);
      const { spec, cli } = c;
      const killed = await upKilledAt(c, action, nth);
      expect(killed.signal).toBe('SIGKILL');
      const resumed = await cli(['up', spec, '--stop-after', 'create-hosts']);
      expect(resumed.exitCode, resumed.stderr).toBe(0);
      expect(await moto.tagged(name, 'Instance')).toHaveLength(4);
      const down = await cli(['down', spec]);
      expect(down.exitCode, down.stderr).toBe(0);
      expect(await moto.tagged(name)).toEqual([]);
    },
  );

  it('a spec without a region is built where the shell said, and down after a region switch removes it', async () => {
    const { spec, cli } = await cluster('cli-pinned', { region: null, windows: 0 });
    const up = await cli(['up', spec, '--stop-after', 'create-hosts'], { AWS_REGION: 'eu-west-1' });
    expect(up.exitCode, up.stderr).toBe(0);
    expect(await moto.tagged('cli-pinned', 'Instance')).toHaveLength(3);
    const elsewhere = { AWS_REGION: 'us-east-1' };
    const status = await cli(['status', spec], elsewhere);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/eu-west-1 {2}vpc vpc-[0-9a-f]+ {2}recorded created {2}exists/);
    const down = await cli(['down', spec], elsewhere);
    expect(down.exitCode, down.stderr).toBe(0);
    expect(await moto.tagged('cli-pinned')).toEqual([]);
  });

  it('SIGKILL, then down without resuming: nothing left', async () => {
    const c = await cluster('kill-down');
    const { spec, cli } = c;
    await upKilledAt(c, 'RunInstances');
    const down = await cli(['down', spec]);
    expect(down.exitCode, down.stderr).toBe(0);
    expect(await moto.tagged('kill-down')).toEqual([]);
  });

  it('bad input (unknown region): exit 2, one line naming the field, nothing created', async () => {
    const { spec, cli } = await cluster('cli-region', { region: 'xx-fake-1' });
    const up = await cli(['up', spec]);
    expect(up.exitCode).toBe(2);
    expect(up.stderr).toContain('provider.region: unknown region xx-fake-1');
    expect(up.stderr).not.toMatch(/\n\s+at /);
    expect(await moto.tagged('cli-region')).toEqual([]);
  });

  it('missing credentials: exit 2, one line naming the chain it tried', async () => {
    const { spec, cli } = await cluster('cli-creds');
    const up = await cli(['up', spec], {
      AWS_ACCESS_KEY_ID: '',
      AWS_SECRET_ACCESS_KEY: '',
      AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/credentials',
      AWS_CONFIG_FILE: '/nonexistent/config',
    });
    expect(up.exitCode).toBe(2);
    expect(up.stderr).toMatch(/no AWS credentials found; tried environment/);
  });
});
