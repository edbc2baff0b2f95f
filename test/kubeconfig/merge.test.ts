import { existsSync } from 'node:fs';
import { lstat, mkdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { ClusterRecord } from '../../fixtures/lab/cluster-state.js';
import { adminKubeconfig } from '../../fixtures/lab/standins/tools/kubeconfig.js';
import { clusterKubeconfig, type Kubeconfig } from '../../src/kubeconfig/merge.js';
import {
  kubeconfigPathForMerge,
  mergeIntoKubeconfig,
  removeFromKubeconfig,
} from '../../src/kubeconfig/merge-file.js';
import { testTempDir } from '../helpers/temp.js';

// admin.conf as the lab's kubeadm stand-in writes it (kubeadm's shape: one cluster "kubernetes",
// one user "kubernetes-admin", one context "kubernetes-admin@kubernetes").
const record = {
  clusterId: 'c0ffee00-0000-4000-8000-000000000001',
  controlPlaneEndpoint: '192.0.2.10:6443',
  caCert: '-----BEGIN CERTIFICATE-----\nQ0EgY2VydA==\n-----END CERTIFICATE-----\n',
  adminCredential: '5ecre7c4ed5ecre7c4ed5ecre7c4ed5ecre7c4ed5ecre7c4',
} as ClusterRecord;
const ADMIN_CONF = adminKubeconfig(record);
const CLIENT_KEY = (parse(ADMIN_CONF) as { users: { user: Record<string, string> }[] }).users[0]!.user[
  'client-key-data'
]!;

/** A user's kubeconfig with a kind cluster in it, current. */
const OTHER = `apiVersion: v1
kind: Config
preferences:
  colors: true
clusters:
  - name: kind-dev
    cluster: { server: "https://127.0.0.1:40000" }
users:
  - name: kind-dev
    user: { token: other-token }
contexts:
  - name: kind-dev
    context: { cluster: kind-dev, user: kind-dev, namespace: apps }
current-context: kind-dev
`;

let work: string;
let adminPath: string;
beforeEach(async () => {
  work = await testTempDir('kubeconfig');
  adminPath = join(work, 'cluster', 'admin.conf');
  await mkdir(join(work, 'cluster'));
  await writeFile(adminPath, ADMIN_CONF, { mode: 0o600 });
});
afterEach(() => rm(work, { recursive: true, force: true }));

const mode = async (path: string) => (await stat(path)).mode & 0o777;
const read = async (path: string) => parse(await readFile(path, 'utf8')) as Kubeconfig;
const names = (config: Kubeconfig, list: 'clusters' | 'users' | 'contexts') =>
  (config[list] ?? []).map((entry) => entry.name);

describe('clusterKubeconfig', () => {
  it('renames the one cluster, user and context to kubemix-<name> and makes it current', () => {
    const config = clusterKubeconfig(parse(ADMIN_CONF), 'lab', 'admin.conf');
    expect([names(config, 'clusters'), names(config, 'users'), names(config, 'contexts')]).toEqual([
      ['kubemix-lab'],
      ['kubemix-lab'],
      ['kubemix-lab'],
    ]);
    expect(config.contexts?.[0]?.['context']).toEqual({ cluster: 'kubemix-lab', user: 'kubemix-lab' });
    expect(config['current-context']).toBe('kubemix-lab');
    expect(config.clusters?.[0]?.['cluster']).toMatchObject({ server: 'https://192.0.2.10:6443' });
  });

  it('refuses a file that is not one cluster, user and context, without quoting it', () => {
    const two = parse(ADMIN_CONF) as Kubeconfig;
    two.users = [...two.users!, { name: 'second', user: {} }];
    expect(() => clusterKubeconfig(two, 'lab', 'admin.conf')).toThrow(
      'admin.conf: a kubeadm kubeconfig has one entry in users, this one has 2',
    );
  });
});

describe('mergeIntoKubeconfig', () => {
  it('creates an absent kubeconfig (0600, in a new 0700 directory) holding only the cluster', async () => {
    const target = join(work, 'home', '.kube', 'config');
    const merged = await mergeIntoKubeconfig({ adminConfPath: adminPath, clusterName: 'lab', target });
    expect(merged).toEqual({ path: target, context: 'kubemix-lab' });
    const config = await read(target);
    expect(config).toMatchObject({ apiVersion: 'v1', kind: 'Config', 'current-context': 'kubemix-lab' });
    expect(names(config, 'contexts')).toEqual(['kubemix-lab']);
    expect(await mode(target)).toBe(0o600);
    expect(await mode(join(work, 'home', '.kube'))).toBe(0o700);
    expect(existsSync(`${target}.lock`)).toBe(false);
  });

  it('merges into an empty file the same way', async () => {
    const target = join(work, 'config');
    await writeFile(target, '');
    await mergeIntoKubeconfig({ adminConfPath: adminPath, clusterName: 'lab', target });
    expect(names(await read(target), 'users')).toEqual(['kubemix-lab']);
  });

  it('keeps the other clusters, users, contexts and fields, switches the current context, and tightens the mode', async () => {
    const target = join(work, 'config');
    await writeFile(target, OTHER, { mode: 0o644 });
    await mergeIntoKubeconfig({ adminConfPath: adminPath, clusterName: 'lab', target });
    const config = await read(target);
    expect(names(config, 'clusters')).toEqual(['kind-dev', 'kubemix-lab']);
    expect(names(config, 'users')).toEqual(['kind-dev', 'kubemix-lab']);
    expect(names(config, 'contexts')).toEqual(['kind-dev', 'kubemix-lab']);
    expect(config.contexts?.[0]?.['context']).toEqual({
      cluster: 'kind-dev',
      user: 'kind-dev',
      namespace: 'apps',
    });
    expect(config['preferences']).toEqual({ colors: true });
    expect(config['current-context']).toBe('kubemix-lab');
    expect(await mode(target)).toBe(0o600);
  });

  it('is idempotent, and replaces entries of the same name with the cluster as it is now', async () => {
    const target = join(work, 'config');
    await writeFile(target, OTHER);
    await mergeIntoKubeconfig({ adminConfPath: adminPath, clusterName: 'lab', target });
    const once = await readFile(target, 'utf8');
    await mergeIntoKubeconfig({ adminConfPath: adminPath, clusterName: 'lab', target });
    expect(await readFile(target, 'utf8')).toBe(once);
    // The cluster was rebuilt: its new credentials replace the old entry in place.
    const rebuilt = adminKubeconfig({ ...record, adminCredential: 'rebuilt0000' });
    await writeFile(adminPath, rebuilt);
    await mergeIntoKubeconfig({ adminConfPath: adminPath, clusterName: 'lab', target });
    const config = await read(target);
    expect(names(config, 'users')).toEqual(['kind-dev', 'kubemix-lab']);
    expect(config.users?.[1]).toEqual(clusterKubeconfig(parse(rebuilt), 'lab', 'admin.conf').users?.[0]);
    expect(config.users?.[1]).not.toEqual(
      clusterKubeconfig(parse(ADMIN_CONF), 'lab', 'admin.conf').users?.[0],
    );
  });

  it('writes through a symlinked kubeconfig, leaving the link in place', async () => {
    const real = join(work, 'dotfiles', 'kubeconfig');
    await mkdir(join(work, 'dotfiles'));
    await writeFile(real, OTHER);
    const target = join(work, 'config');
    await symlink(real, target);
    await mergeIntoKubeconfig({ adminConfPath: adminPath, clusterName: 'lab', target });
    expect((await lstat(target)).isSymbolicLink()).toBe(true);
    expect(names(await read(real), 'contexts')).toEqual(['kind-dev', 'kubemix-lab']);
  });

  it('refuses a locked kubeconfig, a broken one (naming the line, not its text), admin.conf itself and a directory', async () => {
    const target = join(work, 'config');
    await writeFile(target, OTHER);
    await writeFile(`${target}.lock`, '');
    await expect(
      mergeIntoKubeconfig({ adminConfPath: adminPath, clusterName: 'lab', target }),
    ).rejects.toThrow(/is locked by another program/);
    expect(existsSync(`${target}.lock`)).toBe(true);
    await rm(`${target}.lock`);
    await writeFile(target, `users:\n  - name: x\n    user: { token: ${CLIENT_KEY}\n`);
    const broken = mergeIntoKubeconfig({ adminConfPath: adminPath, clusterName: 'lab', target });
    await expect(broken).rejects.toThrow(/config:\d+:\d+: not valid YAML$/);
    await expect(broken).rejects.not.toThrow(CLIENT_KEY);
    await expect(
      mergeIntoKubeconfig({ adminConfPath: adminPath, clusterName: 'lab', target: adminPath }),
    ).rejects.toThrow(/is the cluster's own admin.conf/);
    expect(await readFile(adminPath, 'utf8')).toBe(ADMIN_CONF);
    await expect(
      mergeIntoKubeconfig({ adminConfPath: adminPath, clusterName: 'lab', target: work }),
    ).rejects.toThrow(/is a directory, not a kubeconfig file/);
  });
});

describe('kubeconfigPathForMerge', () => {
  it('picks the file kubectl would write, as kind does', async () => {
    const home = join(work, 'home');
    const [a, b, c] = ['a', 'b', 'c'].map((n) => join(work, n));
    expect(kubeconfigPathForMerge({}, home)).toBe(join(home, '.kube', 'config'));
    expect(kubeconfigPathForMerge({ KUBECONFIG: '' }, home)).toBe(join(home, '.kube', 'config'));
    expect(kubeconfigPathForMerge({ KUBECONFIG: `${a}` }, home)).toBe(a);
    // Several: the first that exists, else the last one; empty entries and repeats do not count.
    expect(kubeconfigPathForMerge({ KUBECONFIG: `${a}::${b}:${c}:${c}` }, home)).toBe(c);
    await writeFile(b!, '');
    expect(kubeconfigPathForMerge({ KUBECONFIG: `${a}:${b}:${c}` }, home)).toBe(b);
  });
});

describe('removeFromKubeconfig', () => {
  it('takes the merged cluster out again as kind delete cluster does: entries gone, others and fields kept, no current context', async () => {
    const target = join(work, 'config');
    await writeFile(target, OTHER);
    const before = await read(target);
    await mergeIntoKubeconfig({ adminConfPath: adminPath, clusterName: 'lab', target });
    expect(await removeFromKubeconfig({ target, clusterName: 'lab' })).toBe(true);
    expect(await read(target)).toEqual({ ...before, 'current-context': '' });
    expect(await mode(target)).toBe(0o600);
    expect(existsSync(`${target}.lock`)).toBe(false);
  });

  it('leaves a file without the cluster as it is, keeps another current context, and skips a file that is gone', async () => {
    const target = join(work, 'config');
    await writeFile(target, OTHER);
    expect(await removeFromKubeconfig({ target, clusterName: 'lab' })).toBe(false);
    expect(await readFile(target, 'utf8')).toBe(OTHER);
    await mergeIntoKubeconfig({ adminConfPath: adminPath, clusterName: 'lab', target });
    const config = await read(target);
    await writeFile(target, stringify({ ...config, 'current-context': 'kind-dev' }));
    expect(await removeFromKubeconfig({ target, clusterName: 'lab' })).toBe(true);
    expect((await read(target))['current-context']).toBe('kind-dev');
    expect(names(await read(target), 'contexts')).toEqual(['kind-dev']);
    expect(await removeFromKubeconfig({ target: join(work, 'absent'), clusterName: 'lab' })).toBe(false);
    expect(existsSync(join(work, 'absent'))).toBe(false);
  });
});
