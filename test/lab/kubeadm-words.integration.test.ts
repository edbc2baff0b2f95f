import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { builtRelease } from '../../fixtures/release/built-release.js';
import { testTempDir } from '../helpers/temp.js';
import { fakeHost } from './helpers.js';

// The lab's kubeadm and the real kubeadm of the pinned release, given the same mistaken command
// line, print the same error. The real one runs chrooted into an empty directory (--rootfs), so
// nothing on this machine is touched. Found this way: the lab printed kubeadm's errors without
// the `error: ` its v1.36+ error handler puts before them (cmd/kubeadm/app/util/errors/errors.go).

const release = builtRelease();

/** The real kubeadm's stderr from its error line on (a reset's klog warning before it has a timestamp). */
async function realKubeadm(args: string[]): Promise<{ code: number; error: string }> {
  const root = await testTempDir('kubeadm-rootfs');
  const run = await execa(join(release.kubernetes, 'kubeadm'), [...args, `--rootfs=${root}`], {
    reject: false,
    input: '',
  });
  const at = run.stderr.indexOf('error: ');
  return { code: run.exitCode ?? 1, error: at < 0 ? run.stderr : run.stderr.slice(at) };
}

/** A lab host whose kubeadm package is the pinned release's. */
async function labHost() {
  const host = await fakeHost(await testTempDir('state'), 'cp1', '10.9.0.2');
  const file = join(host.root, 'var/lib/kubemix-lab/host.json');
  const facts = JSON.parse(await readFile(file, 'utf8'));
  facts.packages.kubeadm = `${release.kubernetesVersion}-1.1`;
  await writeFile(file, JSON.stringify(facts));
  return host;
}

describe("the lab's kubeadm says what the real kubeadm says", () => {
  it.each([
    ['a mistyped flag of join', ['join', '10.9.0.2:6443', '--node-nmae', 'w1', '--token', 'x']],
    ['a mistyped flag of reset', ['reset', '--forc']],
    [
      'a malformed join token (refused before anything is dialled)',
      [
        'join',
        '10.9.0.2:6443',
        '--token',
        'short',
        '--discovery-token-ca-cert-hash',
        `sha256:${'0'.repeat(64)}`,
      ],
    ],
    ['reset unconfirmed', ['reset']],
    [
      'a token command without the admin kubeconfig',
      ['token', 'create', '--kubeconfig', '/nonexistent/admin.conf'],
    ],
  ])('%s', async (_what, args) => {
    const real = await realKubeadm(args);
    const lab = await (await labHost()).run('kubeadm', args);
    expect(real.code).toBe(1);
    expect(lab.code).toBe(real.code);
    expect(lab.stderr.slice(Math.max(0, lab.stderr.indexOf('error: ')))).toBe(`${real.error}\n`);
  });
});
