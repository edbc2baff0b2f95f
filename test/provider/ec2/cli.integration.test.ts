import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MOTO_ENV, type Moto, startMoto } from '../../../fixtures/ec2-proxy/moto.js';
import { taggedWithCluster } from '../../../fixtures/ec2-proxy/moto-data.js';
import { Ec2FaultProxy } from '../../../fixtures/ec2-proxy/proxy.js';
import { runCli, tempHome } from '../../cli/run-cli.js';
import { MOTO_LINUX_AMI, MOTO_WINDOWS_AMI } from './harness.js';

Object.assign(process.env, MOTO_ENV);

// `kubemix up` / `down` on an EC2 spec, the way a user runs them, against moto behind the
// fault proxy. The runs stop after create-hosts: moto's instances are not machines.
let moto: Moto;
const cleanups: (() => Promise<void> | void)[] = [];
beforeAll(async () => {
  moto = await startMoto();
});
afterAll(async () => {
  await moto?.stop();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await moto.reset();
});

async function cluster(name: string, options: { windows?: number; region?: string | null } = {}) {
  const proxy = new Ec2FaultProxy(moto.url);
  const endpoint = await proxy.start();
  const home = tempHome();
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  cleanups.push(() => proxy.stop());
  const spec = join(home, `${name}.yaml`);
  writeFileSync(
    spec,
    [
      `name: ${name}`,
      'provider:',
      '  type: ec2',
      ...(options.region === null ? [] : [`  region: ${options.region ?? 'eu-west-1'}`]),
      '  operatorCidr: 127.0.0.0/8',
      `  endpoint: ${endpoint}`,
      `  images: { linux: ${MOTO_LINUX_AMI}, windows: ${MOTO_WINDOWS_AMI} }`,
      'nodes:',
      '  workers:',
      '    - { name: linux, os: linux, count: 2 }',
      `    - { name: win, os: windows, count: ${options.windows ?? 1} }`,
    ].join('\n'),
  );
  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCli(args, { home, env: { ...MOTO_ENV, ...env } });
  return { proxy, spec, home, cli };
}

interface State {
  resources: { kind: string; name: string; details?: Record<string, string> }[];
}

const instances = async (name: string) =>
  (await taggedWithCluster(moto.url, name)).filter((r) => r.startsWith('Instance '));

describe('kubemix up/down on EC2 (moto)', () => {
  it('up to create-hosts records the hosts, keeps the passwords in secrets.json only, and down leaves nothing', async () => {
    const { spec, cli, proxy, home } = await cluster('cli-up');
    const up = await cli(['up', spec, '--stop-after', 'create-hosts']);
    expect(up.exitCode, up.stderr).toBe(0);
    expect(await instances('cli-up')).toHaveLength(4);
    // status: every recorded resource with EC2's id for it, and that it exists (asked of EC2 by tag).
    const status = await cli(['status', spec]);
    expect(status.exitCode, status.stderr).toBe(0);
    const dir = join(home, 'clusters', 'cli-up');
    const { readFileSync } = await import('node:fs');
    const recorded = (JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as State).resources;
    const idOf = (kind: string, name: string) =>
      recorded.find((r) => r.kind === kind && r.name === name)?.details?.['id'] ?? 'none recorded';
    const tagged = (await taggedWithCluster(moto.url, 'cli-up')).join('\n');
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
    expect(await taggedWithCluster(moto.url, 'cli-up')).toEqual([]);
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
      const { spec, cli, proxy } = await cluster(name);
      const up = cli(['up', spec, '--stop-after', 'create-hosts']);
      let seen = 0;
      // The call reaches moto (the resource is made), then kubemix dies before it hears back.
      proxy.onAction = (done) => {
        if (done === action && ++seen === nth) up.kill('SIGKILL');
      };
      const killed = await up;
      expect(killed.signal).toBe('SIGKILL');
      proxy.onAction = undefined;
      const resumed = await cli(['up', spec, '--stop-after', 'create-hosts']);
      expect(resumed.exitCode, resumed.stderr).toBe(0);
      expect(await instances(name)).toHaveLength(4);
      const down = await cli(['down', spec]);
      expect(down.exitCode, down.stderr).toBe(0);
      expect(await taggedWithCluster(moto.url, name)).toEqual([]);
    },
  );

  it('a spec without a region is built where the shell said, and down after a region switch removes it', async () => {
    const { spec, cli } = await cluster('cli-pinned', { region: null, windows: 0 });
    const up = await cli(['up', spec, '--stop-after', 'create-hosts'], { AWS_REGION: 'eu-west-1' });
    expect(up.exitCode, up.stderr).toBe(0);
    expect(await instances('cli-pinned')).toHaveLength(3);
    const elsewhere = { AWS_REGION: 'us-east-1' };
    const status = await cli(['status', spec], elsewhere);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/eu-west-1 {2}vpc vpc-[0-9a-f]+ {2}recorded created {2}exists/);
    const down = await cli(['down', spec], elsewhere);
    expect(down.exitCode, down.stderr).toBe(0);
    expect(await taggedWithCluster(moto.url, 'cli-pinned')).toEqual([]);
  });

  it('SIGKILL, then down without resuming: nothing left', async () => {
    const { spec, cli, proxy } = await cluster('kill-down');
    const up = cli(['up', spec, '--stop-after', 'create-hosts']);
    proxy.onAction = (done) => {
      if (done === 'RunInstances') up.kill('SIGKILL');
    };
    await up;
    proxy.onAction = undefined;
    const down = await cli(['down', spec]);
    expect(down.exitCode, down.stderr).toBe(0);
    expect(await taggedWithCluster(moto.url, 'kill-down')).toEqual([]);
  });

  it('bad input (unknown region): exit 2, one line naming the field, nothing created', async () => {
    const { spec, cli } = await cluster('cli-region', { region: 'xx-fake-1' });
    const up = await cli(['up', spec]);
    expect(up.exitCode).toBe(2);
    expect(up.stderr).toContain('provider.region: unknown region xx-fake-1');
    expect(up.stderr).not.toMatch(/\n\s+at /);
    expect(await taggedWithCluster(moto.url, 'cli-region')).toEqual([]);
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
