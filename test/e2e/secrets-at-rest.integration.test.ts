import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { testTempDir } from '../helpers/temp.js';
import { kubemixWithUmask } from './helpers.js';
import { privateClusterDir, sharedClusterState, useSharedCluster } from './shared-cluster.js';

// What a 3-controller `kubemix up` leaves behind, run the way a careless machine would run it:
// with umask 000. No secret (bootstrap tokens, the --upload-certs certificate key, the Windows
// password, the SSH private key, admin.conf's client credentials) may appear in anything kubemix
// printed or wrote, except the two files whose job is to hold them (secrets.json, admin.conf),
// and every file and directory kubemix created is private to its owner.
// The cluster is the e2e tier's shared one (test/setup/shared-cluster.ts builds it with umask 000
// and runs its `down`, umask 000 too, at the end of the run, failing the run if that fails).

/** Every file under `dir` (recursively) with its mode, and every directory. */
async function walk(dir: string): Promise<{ files: string[]; dirs: string[] }> {
  const files: string[] = [];
  const dirs: string[] = [dir];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const inner = await walk(path);
      files.push(...inner.files);
      dirs.push(...inner.dirs);
    } else files.push(path);
  }
  return { files, dirs };
}

const mode = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);

/** The base64 lines of a PEM/OpenSSH private key body: any of them showing up is a leak. */
const keyBodyLines = (pem: string) =>
  pem
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length >= 16 && !line.startsWith('-----'));

describe('secrets at rest after a 3-controller up', () => {
  const builtCluster = useSharedCluster();

  it('appear nowhere but secrets.json and admin.conf, which are 0600 in 0700 directories', async () => {
    // Two parents kubemix must create itself: they, too, must end up private.
    const shared = builtCluster();
    const { root, clusterDir, up } = shared;
    const state = sharedClusterState(shared);
    expect(up.stderr).toBe('');
    expect(up.exitCode).toBe(0);
    expect(up.stdout).toContain('DONE  verify');

    const cluster = (await state.cluster())!;
    const tokens = (await state.listTokens()).map((t) => t.token);
    // kubeadm init's token and the fresh one the workers and controllers joined with.
    expect(tokens.length).toBeGreaterThanOrEqual(2);
    const certificateKey = cluster.certificateKey?.key;
    expect(certificateKey).toMatch(/^[0-9a-f]{64}$/);
    const admin = parse(await readFile(join(clusterDir, 'admin.conf'), 'utf8')) as {
      users: { user: Record<string, string> }[];
    };
    const adminUser = admin.users[0]!.user;
    const secrets: Record<string, string> = {
      'certificate key': certificateKey!,
      'Windows password': shared.password,
      'admin.conf client key': adminUser['client-key-data']!,
      'admin.conf client certificate': adminUser['client-certificate-data']!,
      'admin credential': cluster.adminCredential,
    };
    for (const [i, token] of tokens.entries()) {
      secrets[`bootstrap token ${i}`] = token;
      secrets[`bootstrap token ${i} secret part`] = token.split('.')[1]!;
    }
    const privateKey = await readFile(shared.privateKeyPath, 'utf8');
    for (const [i, line] of keyBodyLines(privateKey).entries()) secrets[`SSH private key line ${i}`] = line;

    const { files, dirs } = await walk(clusterDir);
    const scanned = files.filter((f) => !['secrets.json', 'admin.conf'].includes(relative(clusterDir, f)));
    expect(scanned.map((f) => relative(clusterDir, f))).toEqual(
      expect.arrayContaining(['state.json', 'verify.json', expect.stringMatching(/^runs\/.*\.jsonl$/)]),
    );
    const texts: Record<string, string> = { 'kubemix stdout': up.stdout, 'kubemix stderr': up.stderr };
    for (const file of scanned) texts[relative(clusterDir, file)] = await readFile(file, 'utf8');
    const leaks: string[] = [];
    for (const [where, text] of Object.entries(texts))
      for (const [what, value] of Object.entries(secrets))
        if (text.includes(value)) leaks.push(`${what} in ${where}`);
    // Soft checks: a run on broken code reports every kind of problem at once.
    expect.soft(leaks).toEqual([]);

    // The controllers join from a configuration file (0600, removed after): the join command line
    // holds no secret and stays readable in the log.
    const log = Object.entries(texts)
      .filter(([where]) => where.startsWith('runs/'))
      .map(([, text]) => text)
      .join('\n');
    expect
      .soft(
        log.includes('kubeadm join --config /etc/kubernetes/kubemix/kubeadm-join.yaml'),
        'join command shown',
      )
      .toBe(true);

    // Owner only, whatever the umask: the files, the cluster directory and the parents kubemix made.
    const modes: Record<string, string> = {};
    for (const file of files) modes[relative(root, file)] = await mode(file);
    for (const dir of [...dirs, join(root, 'home', 'clusters'), join(root, 'home')])
      modes[`${relative(root, dir)}/`] = await mode(dir);
    expect
      .soft(Object.entries(modes).filter(([path, m]) => m !== (path.endsWith('/') ? '700' : '600')))
      .toEqual([]);

    // What to do next, once the cluster is up.
    expect
      .soft(up.stdout.includes(`export KUBECONFIG='${join(clusterDir, 'admin.conf')}'`), 'export')
      .toBe(true);
    expect.soft(up.stdout.includes('kubectl get nodes -o wide'), 'kubectl hint').toBe(true);

    // The way in that the hint names: merge into the user's kubeconfig, owner-only, nothing printed.
    // The merge is recorded in the cluster directory (for `down`): on this file's own copy of it.
    const user = await testTempDir('secrets-user');
    const kubeconfig = join(user, '.kube', 'config');
    const merge = await kubemixWithUmask(
      '000',
      ['kubeconfig', shared.specPath, '--cluster-dir', await privateClusterDir(shared), '--merge'],
      { KUBECONFIG: kubeconfig, [shared.passwordEnv]: shared.password },
    );
    expect(merge.exitCode).toBe(0);
    for (const value of Object.values(secrets)) expect(`${merge.stdout}${merge.stderr}`).not.toContain(value);
    expect(parse(await readFile(kubeconfig, 'utf8'))).toMatchObject({
      'current-context': 'kubemix-secret-ha',
      clusters: [
        { name: 'kubemix-secret-ha', cluster: { server: `https://${cluster.controlPlaneEndpoint}` } },
      ],
    });
    expect([await mode(kubeconfig), await mode(join(user, '.kube'))]).toEqual(['600', '700']);
  });
});
