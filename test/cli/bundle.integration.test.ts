import { cp, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { kubemixCli } from '../../scripts/lab/kubemix-cli.js';
import { testTempDir } from '../helpers/temp.js';
import { MIXED_SHORT_FORM, repoRoot } from './run-cli.js';

// package.json's `bin` is the bundle scripts/bundle-cli.ts makes from tsc's output; every other
// CLI test runs it. Here: it is the same program as the compiled modules, and it finds the files
// kubemix ships (package.json, playbooks/) from wherever the package is, not by counting `../`.
const compiled = join(repoRoot, 'dist/src/cli/main.js');
const run = (cli: string, args: string[]) =>
  execa('node', [cli, ...args], { reject: false, env: { CI: 'true' } });

describe('the bundled CLI (package.json bin)', () => {
  it('is what package.json installs as `kubemix`', async () => {
    const pkg = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    expect(join(repoRoot, pkg.bin['kubemix']!)).toBe(kubemixCli());
  });

  it('answers as the compiled modules do: version, plan JSON, a typo', async () => {
    for (const args of [
      ['--version'],
      [...MIXED_SHORT_FORM, '-o', 'json'].flatMap((a, i) => (i === 0 ? ['plan', a] : [a])),
      ['plna'],
    ]) {
      const [bundled, modules] = await Promise.all([run(kubemixCli(), args), run(compiled, args)]);
      expect(bundled.exitCode, args.join(' ')).toBe(modules.exitCode);
      expect(bundled.stdout, args.join(' ')).toBe(modules.stdout);
      expect(bundled.stderr, args.join(' ')).toBe(modules.stderr);
    }
  });

  it('reads package.json and the playbooks of the package it is in, wherever that is', async () => {
    const copy = await testTempDir('bundle-copy');
    await mkdir(join(copy, 'dist'));
    await cp(join(repoRoot, 'dist/bundle'), join(copy, 'dist/bundle'), { recursive: true });
    await cp(join(repoRoot, 'playbooks'), join(copy, 'playbooks'), { recursive: true });
    await symlink(join(repoRoot, 'node_modules'), join(copy, 'node_modules'));
    const pkg = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as Record<string, unknown>;
    await writeFile(join(copy, 'package.json'), JSON.stringify({ ...pkg, version: '9.9.9-copy' }));
    const playbook = join(copy, 'playbooks/cluster/prepare-linux.yml');
    const step = "containerd's minimum for the cluster's Kubernetes version";
    const text = await readFile(playbook, 'utf8');
    expect(text, 'prepare-linux.yml still names the step this test renames').toContain(step);
    await writeFile(playbook, text.replace(step, 'a step only the copy has'));

    expect((await run(kubemixCli(copy), ['--version'])).stdout).toBe('9.9.9-copy');
    const planned = await run(kubemixCli(copy), ['plan', 'k8s-libvirt-1-1-1', '-o', 'json']);
    expect(planned.exitCode, planned.stderr).toBe(0);
    expect(planned.stdout).toContain('a step only the copy has');
    expect(planned.stdout).not.toContain(step);
  });
});
