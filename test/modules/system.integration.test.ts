import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClusterLab, startClusterLab } from '../../fixtures/lab/cluster-lab.js';
import { createTransport } from '../../src/executor/create-transport.js';
import { type Inventory, loadInventory, parsePlaybook, runPlaybook } from '../../src/playbook/index.js';
import type { SshTransport } from '../../src/transport/ssh/index.js';
import { testTempDir } from '../helpers/temp.js';
import { labSsh } from '../playbooks-cluster/helpers.js';

// package and service run for real: their scripts over SSH on a lab host whose apt-get, dpkg-query
// and systemctl are the lab's stand-ins (fixtures/lab/README.md: Debian 13's package index, as
// read from deb.debian.org; systemd's unit states and messages). What is checked is what the host
// says afterwards, never the module's own output markers.
let lab: ClusterLab;
let inventory: Inventory;
let host: SshTransport;
let work: string;

beforeAll(async () => {
  lab = await startClusterLab({ count: 1 });
  inventory = await loadInventory(lab.inventoryPath);
  host = labSsh(lab, lab.hosts[0]!);
  work = await testTempDir('system-modules');
});

afterAll(async () => {
  await host?.close();
  await lab?.stop();
});

/** Runs one task on lab-01; returns its record (status and message). */
async function task(text: string, options: { check?: boolean } = {}) {
  const body = text
    .trim()
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
  const result = await runPlaybook({
    playbook: parsePlaybook(`- hosts: lab-01\n  tasks:\n${body}\n`, join(work, 'site.yml')),
    inventory,
    transports: createTransport,
    ...(options.check ? { check: true } : {}),
  });
  const record = result.records[0]!;
  return { status: record.status, msg: record.msg ?? '' };
}

/** What dpkg-query says of a package on lab-01: its version, or undefined when not installed. */
async function installed(name: string): Promise<string | undefined> {
  const r = await host.exec({ command: `dpkg-query -W -f='\${Version}' ${name}` });
  return r.exitCode === 0 ? r.stdout : undefined;
}

const systemctl = async (args: string) => (await host.exec({ command: `systemctl ${args}` })).stdout.trim();

describe('package on a Debian 13 lab host', () => {
  it('installs what is missing (pins too), then has nothing to do', async () => {
    expect(await installed('socat')).toBeUndefined();
    const first = await task('- package: { name: [socat, "jq=1.7.1-6+deb13u4"], state: present }');
    expect(first).toEqual({ status: 'changed', msg: 'installed: socat jq=1.7.1-6+deb13u4' });
    expect(await installed('socat')).toBe('1.8.0.3-1+deb13u1');
    expect(await installed('jq')).toBe('1.7.1-6+deb13u4');
    expect(await task('- apt: { name: socat }')).toEqual({ status: 'ok', msg: 'nothing to do' });
  });

  it('in check mode only says what it would install', async () => {
    const check = await task('- package: { name: ethtool }', { check: true });
    expect(check).toEqual({ status: 'changed', msg: 'would be installed: ethtool' });
    expect(await installed('ethtool')).toBeUndefined();
  });

  it("removes, and fails with apt's own words for a package no repository has", async () => {
    expect(await task('- package: { name: socat, state: absent }')).toMatchObject({ status: 'changed' });
    expect(await installed('socat')).toBeUndefined();
    const unknown = await task('- package: { name: no-such-package-kmx }');
    expect(unknown.status).toBe('failed');
    expect(unknown.msg).toContain('Unable to locate package no-such-package-kmx');
  });
});

describe('package: downgrades and held packages, as apt-get -y treats them', () => {
  it('refuses to downgrade or change a held package unless told, then does both', async () => {
    // pkgs.k8s.io's repository for the lab host, as prepare-linux configures it.
    const repo = 'https://pkgs.k8s.io/core:/stable:/v1.37/deb/';
    const setup = await host.exec({
      command: `mkdir -p /etc/apt/keyrings && curl -fsSL ${repo}Release.key | gpg --dearmor -o /etc/apt/keyrings/kubernetes-apt-keyring.gpg && echo 'deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] ${repo} /' > /etc/apt/sources.list.d/kubernetes.list && apt-get update -q`,
    });
    expect(setup.exitCode, setup.stderr).toBe(0);
    expect(await task('- package: { name: "kubectl=1.37.2-1.1" }')).toMatchObject({ status: 'changed' });
    expect((await host.exec({ command: 'apt-mark hold kubectl' })).exitCode).toBe(0);

    const down = await task('- package: { name: "kubectl=1.37.1-1.1" }');
    expect(down.status).toBe('failed');
    // apt checks the downgrade before the hold (apt-private/private-install.cc, apt 2.6.1 lines 218-229).
    expect(down.msg).toContain('E: Packages were downgraded and -y was used without --allow-downgrades.');
    const held = await task('- package: { name: "kubectl=1.37.1-1.1", allow_downgrade: true }');
    expect(held.msg).toContain(
      'E: Held packages were changed and -y was used without --allow-change-held-packages.',
    );
    expect(await installed('kubectl')).toBe('1.37.2-1.1');
    const both = await task(
      '- package: { name: "kubectl=1.37.1-1.1", allow_downgrade: true, allow_change_held_packages: true }',
    );
    expect(both.status).toBe('changed');
    expect(await installed('kubectl')).toBe('1.37.1-1.1');
  });
});

describe('service on a lab host with containerd installed', () => {
  it('stops, starts and restarts only when needed, and enables and disables', async () => {
    expect(await task('- package: { name: containerd }')).toMatchObject({ status: 'changed' });
    expect(await systemctl('is-active containerd')).toBe('active');
    expect(await task('- service: { name: containerd, state: started }')).toMatchObject({ status: 'ok' });
    expect(await task('- service: { name: containerd, state: stopped }')).toMatchObject({
      status: 'changed',
    });
    expect(await systemctl('is-active containerd')).toBe('inactive');
    expect(await task('- service: { name: containerd, state: stopped }')).toMatchObject({ status: 'ok' });
    expect(await task('- service: { name: containerd, state: started }')).toMatchObject({
      status: 'changed',
    });
    expect(await systemctl('is-active containerd')).toBe('active');
    expect(await task('- service: { name: containerd, state: restarted }')).toMatchObject({
      status: 'changed',
    });
    expect(await task('- systemd: { name: containerd, enabled: false }')).toMatchObject({
      status: 'changed',
    });
    expect(await systemctl('is-enabled containerd')).toBe('disabled');
    expect(await task('- service: { name: containerd, enabled: false }')).toMatchObject({ status: 'ok' });
  });

  it("fails with systemctl's own message for a unit that does not exist", async () => {
    const missing = await task('- service: { name: no-such-unit-kmx, state: started }');
    expect(missing.status).toBe('failed');
    expect(missing.msg).toContain('no-such-unit-kmx.service');
  });
});
