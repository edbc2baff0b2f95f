import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HostState, LabConfig } from '../../fixtures/lab/standins/runtime.js';
import { DISTRIBUTIONS } from '../../fixtures/lab/standins/tools/distributions.js';
import { testTempDir } from '../helpers/temp.js';

// The stand-ins prepare-linux's containerd steps meet, run as the compiled programs (npm run
// build) with a private root instead of a lab host: the distribution from <root>/etc/os-release,
// apt-cache policy, Debian's containerd pulling runc, a static release under /usr/local, and the
// lab's internet directory for curl.
const standins = fileURLToPath(new URL('../../dist/fixtures/lab/standins/', import.meta.url));
let root: string;
let internet: string;
let config: string;

async function tool(name: string, args: string[]) {
  return execa('node', [join(standins, `${name}.js`), ...args], {
    reject: false,
    env: { KUBEMIX_LAB_CONFIG: config },
  });
}

const hostState = async () =>
  JSON.parse(await readFile(join(root, 'var/lib/kubemix-lab/host.json'), 'utf8')) as HostState;

async function writeHostFile(path: string, text: string, mode = 0o644) {
  await mkdir(join(root, path, '..'), { recursive: true });
  await writeFile(join(root, path), text);
  await chmod(join(root, path), mode);
}

beforeEach(async () => {
  root = await testTempDir('containerd-standins');
  internet = await testTempDir('internet');
  await mkdir(join(root, 'var/lib/kubemix-lab'), { recursive: true });
  config = join(root, 'lab.json');
  const lab: LabConfig = {
    stateDir: join(root, 'cluster'),
    root,
    nodeName: 'node1',
    address: '10.9.0.2',
    internetDir: internet,
  };
  await writeFile(config, JSON.stringify(lab));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(internet, { recursive: true, force: true });
});

describe('a host that plays Debian 13', () => {
  beforeEach(() => writeHostFile('/etc/os-release', DISTRIBUTIONS['trixie']!.osRelease));

  it('apt-cache policy answers from the trixie index, then shows what apt-get installed', async () => {
    const before = await tool('apt-cache', ['policy', 'containerd']);
    expect(before.stdout).toContain('  Installed: (none)\n  Candidate: 1.7.24~ds1-6+deb13u1\n');
    const install = await tool('apt-get', ['install', '-y', 'containerd=1.7.24~ds1-6+deb13u1']);
    expect(install.stderr).toBe('');
    // Debian's containerd depends on runc: apt installs both, with trixie's base packages around.
    expect((await hostState()).packages).toMatchObject({
      containerd: '1.7.24~ds1-6+deb13u1',
      runc: '1.1.15+ds1-2+b4',
      curl: '8.14.1-2+deb13u7',
    });
    const after = await tool('apt-cache', ['policy', 'containerd']);
    expect(after.stdout).toContain(' *** 1.7.24~ds1-6+deb13u1 500\n');
    expect((await tool('containerd', ['--version'])).stdout).toBe(
      'containerd github.com/containerd/containerd 1.7.24~ds1 1.7.24~ds1-6+deb13u1',
    );
  });

  it('refuses what it does not model: Debian 12 versions, other packages, options', async () => {
    const old = await tool('apt-get', ['install', '-y', 'containerd=1.6.20~ds1-1+deb12u3']);
    expect(old.exitCode).toBe(100);
    expect(old.stderr).toContain("E: Version '1.6.20~ds1-1+deb12u3' for 'containerd' was not found");
    const other = await tool('apt-cache', ['policy', 'kubelet']);
    expect(other.exitCode).toBe(100);
    expect(other.stderr).toContain('apt-cache policy kubelet: not modelled for Debian 13');
    expect((await tool('apt-cache', ['-q', 'policy', 'containerd'])).exitCode).toBe(100);
    expect((await tool('apt-cache', ['show', 'containerd'])).exitCode).toBe(100);
  });
});

it('a host whose os-release names a distribution the lab does not model is refused', async () => {
  await writeHostFile('/etc/os-release', 'ID=example\nVERSION_CODENAME=unknown\nPRETTY_NAME="Example 1"\n');
  const r = await tool('apt-cache', ['policy', 'containerd']);
  expect(r.exitCode).toBe(100);
  expect(r.stderr).toBe(
    'kubemix lab: the lab models no package index for Example 1 (modelled: bookworm, trixie)',
  );
});

describe("containerd's static release under /usr/local", () => {
  it('is the containerd PATH finds, and systemd starts its unit only when ExecStart exists', async () => {
    await writeHostFile(
      '/usr/local/lib/systemd/system/containerd.service',
      '[Service]\nExecStart=/usr/local/bin/containerd\n',
    );
    const missing = await tool('systemctl', ['start', 'containerd']);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toBe(
      'Job for containerd.service failed because the control process exited with error code.\nSee "systemctl status containerd.service" and "journalctl -xeu containerd.service" for details.',
    );
    await writeHostFile(
      '/usr/local/bin/containerd',
      '#!/bin/sh\necho "containerd github.com/containerd/containerd/v2 v2.3.4 db8809540e1a7a9da5d518876894933ff55692ab"\n',
      0o755,
    );
    await writeHostFile('/usr/local/bin/ctr', '#!/bin/sh\n', 0o755);
    expect((await tool('systemctl', ['enable', '--now', 'containerd'])).exitCode).toBe(0);
    expect((await tool('systemctl', ['is-active', 'containerd'])).stdout).toBe('active');
    expect((await tool('containerd', ['--version'])).stdout).toBe(
      'containerd github.com/containerd/containerd/v2 v2.3.4 db8809540e1a7a9da5d518876894933ff55692ab',
    );
    expect((await tool('ctr', ['version'])).stdout).toContain('Version:  v2.3.4');
    expect((await hostState()).packages['containerd']).toBeUndefined();
  });
});

describe("curl and the lab's internet directory", () => {
  it('serves the files it has, 404s other paths of its hosts, and cannot resolve other hosts', async () => {
    await mkdir(join(internet, 'github.com/x'), { recursive: true });
    await writeFile(join(internet, 'github.com/x/a.tar.gz'), Buffer.from([0x1f, 0x8b, 0, 255]));
    const out = join(root, 'tmp/a.tar.gz');
    const ok = await tool('curl', ['-fsSL', '--retry', '3', '-o', out, 'https://github.com/x/a.tar.gz']);
    expect(ok.exitCode).toBe(0);
    expect(await readFile(out)).toEqual(Buffer.from([0x1f, 0x8b, 0, 255]));
    const absent = await tool('curl', ['-fsSL', '-o', out, 'https://github.com/x/b.tar.gz']);
    expect(absent).toMatchObject({
      exitCode: 22,
      stderr: 'curl: (22) The requested URL returned error: 404',
    });
    const elsewhere = await tool('curl', ['-fsSL', 'https://example.org/']);
    expect(elsewhere.exitCode).toBe(6);
    expect((await hostState()).network).toEqual([
      'curl https://github.com/x/a.tar.gz',
      'curl https://github.com/x/b.tar.gz',
      'curl https://example.org/',
    ]);
  });
});
