import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ClusterRecord } from '../../fixtures/lab/cluster-state.js';
import { adminKubeconfig } from '../../fixtures/lab/standins/tools/kubeconfig.js';
import { runCli, tempHome } from './run-cli.js';

const localSpec = 'fixtures/cli/local-static.yaml';
const homes: string[] = [];
const home = () => {
  const dir = tempHome();
  homes.push(dir);
  return dir;
};
afterEach(async () => {
  await Promise.all(homes.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A cluster directory as `kubemix up` leaves it for the spec's cluster (admin.conf from the lab's kubeadm). */
function builtCluster(kubemixHome: string): { admin: string; clientKey: string } {
  const dir = join(kubemixHome, 'clusters', 'local-demo');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const text = adminKubeconfig({
    clusterId: 'c0ffee00-0000-4000-8000-000000000002',
    controlPlaneEndpoint: '127.0.0.1:6443',
    caCert: '-----BEGIN CERTIFICATE-----\nQ0EgY2VydA==\n-----END CERTIFICATE-----\n',
    adminCredential: 'a11ce0000000000000000000000000000000000000000000',
  } as ClusterRecord);
  const admin = join(dir, 'admin.conf');
  writeFileSync(admin, text, { mode: 0o600 });
  const clientKey = (parse(text) as { users: { user: Record<string, string> }[] }).users[0]!.user[
    'client-key-data'
  ]!;
  return { admin, clientKey };
}

describe('kubemix kubeconfig', () => {
  it('says in one line, exit 2, that a cluster not built yet has no kubeconfig', async () => {
    const result = await runCli(['kubeconfig', localSpec], { home: home() });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('cluster local-demo has no kubeconfig yet');
    expect(result.stderr).toContain('kubemix up');
    expect(result.stdout).toBe('');
  });

  it('prints the path, and --merge adds the cluster to $KUBECONFIG or ~/.kube/config without printing secrets', async () => {
    const kubemixHome = home();
    const { admin, clientKey } = builtCluster(kubemixHome);
    const printed = await runCli(['kubeconfig', localSpec], { home: kubemixHome });
    expect([printed.exitCode, printed.stdout, printed.stderr]).toEqual([0, admin, '']);

    const user = home();
    const listed = join(user, 'kube', 'config');
    const merged = await runCli(['kubeconfig', localSpec, '--merge'], {
      home: kubemixHome,
      env: { KUBECONFIG: listed, HOME: user },
    });
    expect(merged.exitCode).toBe(0);
    expect(merged.stdout).toBe(
      `merged cluster local-demo into ${listed}; current context: kubemix-local-demo`,
    );
    expect(`${merged.stdout}${merged.stderr}`).not.toContain(clientKey);
    expect(parse(readFileSync(listed, 'utf8'))).toMatchObject({ 'current-context': 'kubemix-local-demo' });
    expect(statSync(listed).mode & 0o777).toBe(0o600);

    const fallback = await runCli(['kubeconfig', localSpec, '--merge'], {
      home: kubemixHome,
      env: { KUBECONFIG: '', HOME: user },
    });
    expect(fallback.exitCode).toBe(0);
    expect(statSync(join(user, '.kube', 'config')).mode & 0o777).toBe(0o600);
  });

  it('has --help', async () => {
    const result = await runCli(['kubeconfig', '--help'], { home: home() });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('Usage: kubemix kubeconfig <spec>');
    expect(result.stdout).toContain('kubemix-<name>');
  });
});
