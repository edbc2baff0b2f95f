import { writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadClusterContext } from '../../src/cluster/index.js';
import { openEc2Spec } from '../helpers/open-ec2-spec.js';
import { testTempDir } from '../helpers/temp.js';

const openEc2 = openEc2Spec();

describe('loadClusterContext (the library call up, down and plan make)', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it("tells the spec's warnings to onWarning and writes nothing to stdout or stderr", async () => {
    const dir = await testTempDir('cluster-context');
    const spec = join(dir, 'open.yaml');
    await writeFile(spec, openEc2);
    const written: string[] = [];
    for (const stream of [process.stdout, process.stderr])
      vi.spyOn(stream, 'write').mockImplementation((chunk) => {
        written.push(String(chunk));
        return true;
      });
    for (const method of ['log', 'info', 'warn', 'error'] as const)
      vi.spyOn(console, method).mockImplementation((...args) => {
        written.push(args.join(' '));
      });
    const warnings: string[] = [];
    const context = await loadClusterContext({
      spec,
      clusterDir: join(dir, 'cluster'),
      onWarning: (w) => warnings.push(w),
    });
    vi.restoreAllMocks();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^provider\.operatorCidr: 0\.0\.0\.0\/0 opens SSH, WinRM and the API server/);
    expect(written).toEqual([]);
    expect(context.spec.name).toBe('openlab');
  });

  it('puts the cluster under $KUBEMIX_HOME/clusters/<name> unless given a directory, which it resolves', async () => {
    const home = await testTempDir('cluster-home');
    vi.stubEnv('KUBEMIX_HOME', home);
    const byDefault = await loadClusterContext({ spec: 'k8s-libvirt-1-1-1' });
    expect(byDefault.clusterDir).toBe(join(home, 'clusters', 'k8s-libvirt-1-1-1'));
    const given = relative(process.cwd(), join(home, 'elsewhere'));
    const named = await loadClusterContext({ spec: 'k8s-libvirt-1-1-1', clusterDir: given });
    expect(named.clusterDir).toBe(resolve(given));
    // The plans run in that directory: the cluster key and state paths are derived from it.
    expect(JSON.stringify(named.upPlan())).toContain(resolve(given));
  });

  it("takes the short form's options as the CLI's flags give them", async () => {
    const home = await testTempDir('cluster-home');
    vi.stubEnv('KUBEMIX_HOME', home);
    const context = await loadClusterContext({
      spec: 'k8s-libvirt-1-2-1',
      shortForm: {
        windowsWorkers: 1,
        windowsIso: 'https://isos.example/ws2022.iso',
        windowsIsoSha256: 'a'.repeat(64),
        name: 'mixed',
      },
    });
    expect(context.spec.name).toBe('mixed');
    const windowsHosts = context.upPlan().hosts.filter((host) => host.os === 'windows');
    expect(windowsHosts).toHaveLength(1);
  });

  it('refuses short-form options with a spec file, naming the option', async () => {
    await expect(
      loadClusterContext({ spec: 'fixtures/specs/valid/minimal.yaml', shortForm: { windowsWorkers: 1 } }),
    ).rejects.toThrow(/--windows-workers/);
  });
});
