import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { leftovers, removeTestStorage, testImage, writeLibvirtSpec } from '../../fixtures/libvirt/lab.js';
import { ensureLibvirtd, LIBVIRT_URI, type TestLibvirtd, virsh } from '../../fixtures/libvirt/libvirtd.js';
import { uniqueTestCluster } from '../../fixtures/libvirt/test-cluster.js';
import { readState } from '../../src/engine/index.js';
import { bridgeName, networkName } from '../../src/provider/libvirt/names.js';
import { LOCAL_HYPERVISOR } from '../../src/spec/schema.js';
import { kubemix, tempClusterDir } from '../e2e/helpers.js';
import { waitFor } from '../engine/helpers.js';
import { testTempDir } from '../helpers/temp.js';

// Faults at each provider step, then `down`: nothing of the cluster may be left, and a resumed
// `up` after a SIGKILL during create-hosts never makes anything twice. Only the SIGKILL case
// starts a guest (it must get through create-hosts); the others fail before any guest runs.
// Names, networks and the pool are fresh per run: other worktrees may run this file on the same libvirtd.
const run = randomBytes(3).toString('hex');
const storage = { dataDir: `/var/lib/kubemix-tests-faults-${run}`, pool: `kubemix-tests-faults-${run}` };
let libvirtd: TestLibvirtd;
let image: { path: string; sha256: string };
const made: Array<{ name: string; cidr: string; spec: string; clusterDir: string }> = [];

async function newCluster(stem: string) {
  const { name, cidr } = await uniqueTestCluster(stem);
  const clusterDir = join(await tempClusterDir(), 'cluster');
  const spec = await writeLibvirtSpec(join(clusterDir, '..', `${name}.yaml`), {
    name,
    cidr,
    image: { source: image.path, sha256: image.sha256 },
    ...storage,
  });
  const cluster = { name, cidr, spec, clusterDir };
  made.push(cluster);
  return cluster;
}

const down = (c: { spec: string; clusterDir: string }) =>
  kubemix(['down', c.spec, '--cluster-dir', c.clusterDir]);
const gone = (c: { name: string; cidr: string }) => leftovers({ ...c, ...storage });

beforeAll(async () => {
  libvirtd = await ensureLibvirtd();
  image = await testImage();
}, 20 * 60_000);

afterAll(async () => {
  for (const c of made) if ((await gone(c)).length > 0) await down(c);
  for (const c of made) await rm(join(c.clusterDir, '..'), { recursive: true, force: true });
  await removeTestStorage(storage);
  await libvirtd?.stop();
}, 10 * 60_000);

describe('libvirt provider faults', () => {
  it('create-network fails (its bridge name is taken): down removes what was recorded, nothing is left', async () => {
    const c = await newCluster('kmxfault1');
    const bridge = bridgeName(c.name, LOCAL_HYPERVISOR.name);
    await execa('ip', ['link', 'add', bridge, 'type', 'bridge']);
    try {
      const up = await kubemix(['up', c.spec, '--cluster-dir', c.clusterDir]);
      expect(up.exitCode, up.stdout).toBe(1);
      expect(up.stdout).toMatch(/FAIL {2}create-network/);
    } finally {
      await execa('ip', ['link', 'delete', bridge]);
    }
    const state = await readState(c.clusterDir);
    expect(state?.resources.map((r) => `${r.kind} ${r.status}`)).toContain('network intended');
    const teardown = await down(c);
    expect(teardown.exitCode, teardown.stdout).toBe(0);
    expect(await gone(c)).toEqual([]);
  });

  it('create-hosts fails after making volumes and a domain: down removes them all', async () => {
    const c = await newCluster('kmxfault2');
    const first = await kubemix([
      'up',
      c.spec,
      '--cluster-dir',
      c.clusterDir,
      '--stop-after',
      'create-network',
    ]);
    expect(first.exitCode, first.stdout).toBe(0);
    // QEMU cannot open a directory as the serial console log: the guest is defined but never starts.
    await mkdir(join(storage.dataDir, 'clusters', c.name, 'controller-01.console.log'));
    const up = await kubemix(['up', c.spec, '--cluster-dir', c.clusterDir]);
    expect(up.exitCode, up.stdout).toBe(1);
    expect(up.stderr + up.stdout).toContain(`${c.name}.controller-01: cannot start`);
    expect((await virsh('list', '--all', '--name')).split('\n')).toContain(`${c.name}.controller-01`);
    const teardown = await down(c);
    expect(teardown.exitCode, teardown.stdout).toBe(0);
    expect(await gone(c)).toEqual([]);
  });

  it('a fresh up seeds its guests with the cluster key it generates, not a placeholder', async () => {
    // A plan made before the key exists has only the placeholder text to write into the seed, and
    // the guests then refuse every login (wait-for-hosts fails after its whole timeout).
    const c = await newCluster('kmxfault4');
    const up = await kubemix(['up', c.spec, '--cluster-dir', c.clusterDir, '--stop-after', 'create-hosts']);
    expect(up.exitCode, up.stdout).toBe(0);
    const seed = join(storage.dataDir, 'pool', `${c.name}.controller-01.seed.iso`);
    const userData = (await execa('isoinfo', ['-i', seed, '-R', '-x', '/user-data'])).stdout;
    const publicKey = (await readFile(join(c.clusterDir, 'id_ed25519.pub'), 'utf8')).trim();
    expect(parse(userData).ssh_authorized_keys).toEqual([publicKey]);
    const teardown = await down(c);
    expect(teardown.exitCode, teardown.stdout).toBe(0);
    expect(await gone(c)).toEqual([]);
  });

  it('a libvirt network removed between the listing and its dump (another cluster going down) does not fail prepare-provider', async () => {
    // Two clusters on one hypervisor: one's `down` may remove its network while the other's
    // prepare-provider reads every network's range. Forced here with the real virsh: a `virsh` first
    // on PATH defines a network, lists (so the listing names it), removes it, and only then prints
    // the listing. Named to sort last, so before the fix it was the loop's last dump and its exit code.
    const c = await newCluster('kmxfault5');
    const dir = await testTempDir('vanish');
    const vanishing = `zz-kmxvanish-${run}`;
    await writeFile(join(dir, 'network.xml'), `<network><name>${vanishing}</name></network>\n`);
    const wrapper = [
      '#!/bin/sh',
      'case " $* " in',
      '  *" net-list "*)',
      `    /usr/bin/virsh -q -c '${LIBVIRT_URI}' net-define '${join(dir, 'network.xml')}' >/dev/null || exit`,
      '    out=$(/usr/bin/virsh "$@") || exit',
      `    /usr/bin/virsh -q -c '${LIBVIRT_URI}' net-undefine '${vanishing}' >/dev/null || exit`,
      `    echo listed >>'${join(dir, 'listings')}'`,
      '    printf \'%s\\n\' "$out"',
      '    exit 0 ;;',
      'esac',
      'exec /usr/bin/virsh "$@"',
    ].join('\n');
    await mkdir(join(dir, 'bin'));
    await writeFile(join(dir, 'bin', 'virsh'), `${wrapper}\n`);
    await chmod(join(dir, 'bin', 'virsh'), 0o755);
    const up = await kubemix(
      ['up', c.spec, '--cluster-dir', c.clusterDir, '--stop-after', 'prepare-provider'],
      {
        PATH: `${join(dir, 'bin')}:${process.env['PATH']}`,
      },
    ).finally(() => execa('virsh', ['-q', '-c', LIBVIRT_URI, 'net-undefine', vanishing], { reject: false }));
    expect(up.exitCode, up.stdout).toBe(0);
    expect(up.stdout).toContain('DONE  prepare-provider');
    // The race did happen: prepare-provider listed networks through the wrapper.
    expect((await readFile(join(dir, 'listings'), 'utf8')).length).toBeGreaterThan(0);
    expect((await virsh('net-list', '--all', '--name')).split('\n')).not.toContain(vanishing);
    const teardown = await down(c);
    expect(teardown.exitCode, teardown.stdout).toBe(0);
    expect(await gone(c)).toEqual([]);
  });

  it('a SIGKILL during create-hosts, then up again: no duplicates; down leaves nothing', async () => {
    const c = await newCluster('kmxfault3');
    const stateFile = join(c.clusterDir, 'state.json');
    const child = kubemix(['up', c.spec, '--cluster-dir', c.clusterDir, '--stop-after', 'create-hosts']);
    // The guests' intent is written before the first of their volumes is made: kill right then.
    await waitFor(
      async () => (await readFile(stateFile, 'utf8').catch(() => '')).includes('"kind": "domain"'),
      5 * 60_000,
      'the domain intent in state.json',
    );
    child.kill('SIGKILL');
    await child;
    expect((await readState(c.clusterDir))?.tasks['create-hosts']?.status).not.toBe('done');

    const resumed = await kubemix([
      'up',
      c.spec,
      '--cluster-dir',
      c.clusterDir,
      '--stop-after',
      'create-hosts',
    ]);
    expect(resumed.exitCode, resumed.stdout).toBe(0);
    const domains = (await virsh('list', '--all', '--name'))
      .split('\n')
      .filter((d) => d.startsWith(`${c.name}.`));
    const volumes = (await virsh('vol-list', '--pool', storage.pool))
      .split('\n')
      .map((l) => l.trim().split(/\s+/)[0] ?? '')
      .filter((v) => v.startsWith(`${c.name}.`));
    expect(domains).toEqual([`${c.name}.controller-01`]);
    expect(volumes.sort()).toEqual([
      `${c.name}.controller-01.disk.qcow2`,
      `${c.name}.controller-01.seed.iso`,
    ]);
    const recorded = (await readState(c.clusterDir))?.resources.map((r) => `${r.kind} ${r.name} ${r.status}`);
    expect(recorded?.sort()).toEqual(
      [
        `directory ${storage.dataDir}/clusters/${c.name} created`,
        `domain ${c.name}.controller-01 created`,
        `network ${networkName(c.name, LOCAL_HYPERVISOR.name)} created`,
        `volume ${c.name}.controller-01.disk.qcow2 created`,
        `volume ${c.name}.controller-01.seed.iso created`,
      ].sort(),
    );
    const teardown = await down(c);
    expect(teardown.exitCode, teardown.stdout).toBe(0);
    expect(await gone(c)).toEqual([]);
  });
});
