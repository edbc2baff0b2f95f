import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildPlan, buildTeardownPlan } from '../../../src/plan/index.js';
import { ensureClusterKey } from '../../../src/provider/cluster-key.js';
import { EC2_KEY_FILE } from '../../../src/provider/ec2/ec2-provider.js';
import { parseSpecText } from '../../../src/spec/parse.js';
import { loadVersions } from '../../../src/versions/versions.js';
import { testTempDirSync } from '../../helpers/temp.js';

const versions = loadVersions();
const spec = (extra: string[] = []) =>
  parseSpecText(
    [
      'name: cloud',
      'provider:',
      '  type: ec2',
      '  region: eu-west-1',
      '  operatorCidr: 198.51.100.0/24',
      ...extra,
      'nodes:',
      '  workers:',
      '    - { name: linux, os: linux, count: 1 }',
      '    - { name: win, os: windows, count: 1 }',
      '    - { name: winssh, os: windows, count: 1, connection: ssh }',
    ].join('\n'),
    'spec.yaml',
  );

describe('the EC2 provider in the plan', () => {
  const plan = buildPlan({ spec: spec(), versions, clusterDir: '/clusters/cloud' });
  const task = (name: string) => plan.tasks.find((t) => t.name === name)!;
  const host = (name: string) => plan.hosts.find((h) => h.name === name)!;

  it('runs its tasks on localhost with EC2 modules, the Windows passwords registered as a secret', () => {
    expect(
      ['prepare-provider', 'create-network', 'create-hosts'].map((t) => [
        t,
        task(t).hosts,
        task(t).steps.map((s) => s.module),
      ]),
    ).toEqual([
      ['prepare-provider', ['localhost'], ['ec2_preflight']],
      ['create-network', ['localhost'], ['ec2_network']],
      ['create-hosts', ['localhost'], ['ec2_instances', 'ec2_windows_passwords']],
    ]);
    // create-hosts' own failures are shown whole; only the passwords' step is a secret one.
    expect(task('create-hosts').steps[0]?.secret).toBeUndefined();
    expect(task('create-hosts').steps[1]).toMatchObject({ register: 'ec2_windows_passwords', secret: true });
    expect(task('create-hosts').steps[1]?.args).toMatchObject({ keyFile: '/clusters/cloud/id_rsa' });
  });

  it('plans nodes without addresses, logging in with the cluster key or the password kept in secrets.json', () => {
    expect(host('controller-01')).toMatchObject({
      address: '',
      port: 22,
      createdBy: 'ec2',
      hostKeyPolicy: 'accept-new',
      credentials: { user: 'kubemix', privateKey: { file: '/clusters/cloud/id_rsa' } },
    });
    expect(host('win-01')).toMatchObject({
      port: 5985,
      credentials: { user: 'Administrator' },
      vars: { kubemix_password_secret: 'ec2_windows_passwords.win-01' },
    });
    expect(host('win-01').credentials?.password).toBeUndefined();
    expect(host('winssh-01')).toMatchObject({
      port: 22,
      credentials: { user: 'Administrator', privateKey: { file: '/clusters/cloud/id_rsa' } },
    });
    const https = buildPlan({ spec: spec(['  winrm: https']), versions, clusterDir: '/c' });
    expect(https.hosts.find((h) => h.name === 'win-01')?.port).toBe(5986);
    // The WinRM certificates are made once and kept in secrets.json; create-hosts reads them back.
    const steps = https.tasks.find((t) => t.name === 'create-hosts')?.steps ?? [];
    expect(steps.map((s) => s.module)).toEqual([
      'ec2_winrm_certificates',
      'ec2_instances',
      'ec2_windows_passwords',
    ]);
    expect(steps[0]).toMatchObject({
      register: 'ec2_winrm_certificates',
      secret: true,
      args: { known: '{{ outputs.ec2_winrm_certificates | default({}) }}' },
    });
    expect(steps[1]?.args).toMatchObject({
      certificates: '{{ outputs.ec2_winrm_certificates | default({}) }}',
    });
  });

  it('tears down on localhost: destroy, then the leak check', () => {
    const down = buildTeardownPlan({ spec: spec(), versions, clusterDir: '/clusters/cloud', resources: [] });
    expect(down.tasks.map((t) => [t.name, t.needs, t.hosts, t.steps.map((s) => s.module)])).toEqual([
      ['destroy-hosts', [], ['localhost'], ['ec2_destroy']],
      ['check-leaks', ['destroy-hosts'], ['localhost'], ['ec2_leak_check']],
    ]);
  });
});

describe('the cluster key for EC2', () => {
  const dir = testTempDirSync('ec2-key');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is RSA 2048 in PEM (PKCS#1), 0600, made once', async () => {
    const publicKey = await ensureClusterKey(dir, 'cloud', EC2_KEY_FILE, 'rsa');
    const file = join(dir, EC2_KEY_FILE);
    expect(readFileSync(file, 'utf8')).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(publicKey).toMatch(/^ssh-rsa \S+ kubemix@cloud$/);
    expect(execFileSync('ssh-keygen', ['-l', '-f', file], { encoding: 'utf8' })).toMatch(/^2048 /);
    expect(await ensureClusterKey(dir, 'cloud', EC2_KEY_FILE, 'rsa')).toBe(publicKey);
  });
});
