import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { beforeEach, describe, expect, it } from 'vitest';
import { buildDeb, buildImageArchive } from '../../fixtures/artifacts/offline-fixtures.js';
import type { HostState, LabConfig } from '../../fixtures/lab/standins/runtime.js';
import { testTempDir } from '../helpers/temp.js';

// The Linux stand-ins' offline additions, run as the compiled programs (npm run build) with a
// private root instead of a lab host: local .deb installs (read by the real dpkg-deb), image
// archives imported with ctr, and every internet attempt recorded (failing on an offline host).
const standins = fileURLToPath(new URL('../../dist/fixtures/lab/standins/', import.meta.url));
let root: string;
let config: string;

async function tool(name: string, args: string[]) {
  return execa('node', [join(standins, `${name}.js`), ...args], {
    reject: false,
    env: { KUBEMIX_LAB_CONFIG: config },
  });
}

const hostState = async () =>
  JSON.parse(await readFile(join(root, 'var/lib/kubemix-lab/host.json'), 'utf8')) as HostState;

beforeEach(async () => {
  root = await testTempDir('offline-standins');
  await mkdir(join(root, 'var/lib/kubemix-lab'), { recursive: true });
  config = join(root, 'lab.json');
  const lab: LabConfig = { stateDir: join(root, 'cluster'), root, nodeName: 'node1', address: '10.9.0.2' };
  await writeFile(config, JSON.stringify(lab));
});

describe('apt-get install of local .deb files', () => {
  it('installs the packages the files carry, with their dependencies given as files too', async () => {
    const dir = await testTempDir('debs');
    const files = {
      kubelet: join(dir, 'kubelet_1.31.2-1.1_amd64.deb'),
      cni: join(dir, 'kubernetes-cni_1.5.1-1.1_amd64.deb'),
      containerd: join(dir, 'containerd_1.6.20~ds1-1+deb12u3_amd64.deb'),
      runc: join(dir, 'runc_1.1.5+ds1-1+deb12u1_amd64.deb'),
    };
    await buildDeb(files.kubelet, {
      name: 'kubelet',
      version: '1.31.2-1.1',
      depends: ['kubernetes-cni (>= 1.2.0)', 'libc6'],
    });
    await buildDeb(files.cni, { name: 'kubernetes-cni', version: '1.5.1-1.1' });
    await buildDeb(files.containerd, {
      name: 'containerd',
      version: '1.6.20~ds1-1+deb12u3',
      depends: ['runc'],
    });
    await buildDeb(files.runc, { name: 'runc', version: '1.1.5+ds1-1+deb12u1' });
    const r = await tool('apt-get', ['install', '-y', ...Object.values(files)]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('Setting up kubelet (1.31.2-1.1) ...');
    const s = await hostState();
    expect(s.packages).toMatchObject({
      kubelet: '1.31.2-1.1',
      'kubernetes-cni': '1.5.1-1.1',
      containerd: '1.6.20~ds1-1+deb12u3',
      runc: '1.1.5+ds1-1+deb12u1',
    });
    // Debian's postinst starts containerd; the kubelet waits for kubeadm.
    expect(s.services['containerd']).toEqual({ enabled: true, active: true });
    expect(s.network ?? []).toEqual([]);
  });

  it('refuses a file whose dependency no file brings and no repository offers', async () => {
    const dir = await testTempDir('debs');
    const kubeadm = join(dir, 'kubeadm_1.31.2-1.1_amd64.deb');
    await buildDeb(kubeadm, { name: 'kubeadm', version: '1.31.2-1.1', depends: ['cri-tools (>= 1.28.0)'] });
    const r = await tool('apt-get', ['install', '-y', kubeadm]);
    expect(r.exitCode).toBe(100);
    expect(r.stderr).toContain('kubeadm : Depends: cri-tools but it is not installable');
    // A file that brings the dependency at a version the relation does not allow is refused too
    // (real apt in a Debian 13 guest refused exactly this: the libvirt e2e's test repository).
    const old = join(dir, 'cri-tools_1.10.0-1.1_amd64.deb');
    await buildDeb(old, { name: 'cri-tools', version: '1.10.0-1.1' });
    const tooOld = await tool('apt-get', ['install', '-y', kubeadm, old]);
    expect(tooOld.exitCode).toBe(100);
    expect(tooOld.stderr).toContain(
      'kubeadm : Depends: cri-tools (>= 1.28.0) but 1.10.0-1.1 is to be installed',
    );
    const missing = await tool('apt-get', ['install', '-y', join(dir, 'nope_1_amd64.deb')]);
    expect(missing.exitCode).toBe(100);
    expect(missing.stderr).toContain(
      `E: Unsupported file ${join(dir, 'nope_1_amd64.deb')} given on commandline`,
    );
  });
});

describe('ctr -n k8s.io images import', () => {
  it('records the images of docker-save and OCI archives on the node', async () => {
    await tool('apt-get', ['install', '-y', 'containerd']);
    const dir = await testTempDir('images');
    await buildImageArchive(join(dir, 'flannel.tar'), 'flannel/flannel:v0.25.7', 'docker');
    await buildImageArchive(join(dir, 'pause.tar'), 'registry.k8s.io/pause:3.10', 'oci');
    for (const f of ['flannel.tar', 'pause.tar']) {
      const r = await tool('ctr', ['-n', 'k8s.io', 'images', 'import', join(dir, f)]);
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
    }
    expect((await hostState()).images).toEqual([
      'docker.io/flannel/flannel:v0.25.7',
      'registry.k8s.io/pause:3.10',
    ]);
    const ls = await tool('ctr', ['-n', 'k8s.io', 'images', 'ls', '-q']);
    expect(ls.stdout).toBe('docker.io/flannel/flannel:v0.25.7\nregistry.k8s.io/pause:3.10');
    await writeFile(join(dir, 'junk.tar'), 'not a tar at all'.repeat(64));
    const bad = await tool('ctr', ['-n', 'k8s.io', 'images', 'import', join(dir, 'junk.tar')]);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain('not a tar archive');
  });
});

describe('internet attempts', () => {
  it('are recorded: curl to a host name, apt-get update sources, packages from a repository', async () => {
    await tool('curl', ['-fsSL', 'https://pkgs.k8s.io/core:/stable:/v1.31/deb/Release.key']);
    await tool('curl', ['-s', 'http://10.9.0.77:8080/']);
    await tool('apt-get', ['update']);
    await tool('apt-get', ['install', '-y', 'containerd']);
    expect((await hostState()).network).toEqual([
      'curl https://pkgs.k8s.io/core:/stable:/v1.31/deb/Release.key',
      'apt-get http://deb.debian.org/debian',
      'apt-get http://deb.debian.org/debian containerd=1.6.20~ds1-1+deb12u3',
      // Debian's containerd depends on runc (its Packages entry): apt fetches both.
      'apt-get http://deb.debian.org/debian runc=1.1.5+ds1-1+deb12u1',
    ]);
  });

  it('fail on an offline host', async () => {
    await writeFile(join(root, 'var/lib/kubemix-lab/offline'), '');
    const curl = await tool('curl', ['-fsSL', 'https://pkgs.k8s.io/core:/stable:/v1.31/deb/Release.key']);
    expect(curl.exitCode).toBe(6);
    expect(curl.stderr).toBe('curl: (6) Could not resolve host: pkgs.k8s.io');
    const install = await tool('apt-get', ['install', '-y', 'containerd']);
    expect(install.exitCode).toBe(100);
    expect(install.stderr).toContain("Temporary failure resolving 'deb.debian.org'");
    expect((await hostState()).packages['containerd']).toBeUndefined();
  });
});
