import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type Lab, labScriptPath, startLab } from '../../../scripts/lab/lab.js';
import { testTempDirSync } from '../../helpers/temp.js';
import { labTransport } from './helpers.js';

let lab: Lab;
let standins: string;

beforeAll(async () => {
  standins = testTempDirSync('standins');
  writeFileSync(join(standins, 'kubeadm'), '#!/bin/sh\necho "stand-in kubeadm $* on $(hostname)"\n');
  chmodSync(join(standins, 'kubeadm'), 0o755);
  lab = await startLab({ count: 10, standinsDir: standins });
});

afterAll(async () => {
  await lab?.stop();
  rmSync(standins, { recursive: true, force: true });
});

const ssh = (host: string, command: string) =>
  execFileSync('ssh', ['-F', lab.sshConfigPath, '-o', 'BatchMode=yes', host, command], { encoding: 'utf8' });

describe('lab.sh', () => {
  it('starts 10 hosts with their own names, reachable with OpenSSH through the written ssh_config', () => {
    expect(lab.hosts.map((h) => h.name)).toEqual(
      Array.from({ length: 10 }, (_, i) => `lab-${String(i + 1).padStart(2, '0')}`),
    );
    expect(new Set(lab.hosts.map((h) => h.address)).size).toBe(10);
    expect(ssh('lab-07', 'hostname')).toBe('lab-07\n');
  });

  it('writes an Ansible YAML inventory with group lab', () => {
    const inventory = parse(readFileSync(lab.inventoryPath, 'utf8'));
    expect(Object.keys(inventory.all.children.lab.hosts)).toHaveLength(10);
    expect(inventory.all.hosts['lab-01']).toEqual({
      ansible_host: lab.hosts[0]!.address,
      ansible_port: 22,
      ansible_user: 'root',
      ansible_ssh_private_key_file: lab.privateKeyPath,
    });
    expect(readFileSync(lab.knownHostsPath, 'utf8').trim().split('\n')).toHaveLength(10);
    const pids = readFileSync(join(lab.dir, 'pids'), 'utf8').trim().split('\n');
    expect(pids).toHaveLength(10);
  });

  it('gives every host a private /root, private state directories and its own /etc/hosts', async () => {
    const a = labTransport(lab, 'lab-01');
    const b = labTransport(lab, 'lab-02');
    await a.exec({
      command: 'echo mine > /etc/kubernetes/admin.conf; echo x > /var/lib/kubelet/state; echo 1 > /etc/cni/c',
    });
    const seen = await b.exec({
      command:
        'ls -A /etc/kubernetes /var/lib/kubelet /etc/cni /opt/cni /etc/containerd /var/lib/kubemix-lab',
    });
    expect(seen.stdout).not.toContain('admin.conf');
    expect(seen.stdout).not.toContain('state');
    expect(existsSync('/etc/kubernetes/admin.conf')).toBe(false);
    expect((await a.exec({ command: 'cat /etc/kubernetes/admin.conf' })).stdout).toBe('mine\n');
    expect((await a.exec({ command: 'ls -A /root; cat /root/.ssh/authorized_keys | wc -l' })).stdout).toBe(
      '.ssh\n1\n',
    );
    expect((await a.exec({ command: 'getent hosts lab-01 lab-02 | wc -l' })).stdout).toBe('2\n');
    await a.close();
    await b.close();
  });

  it('puts the private bin directory first on PATH, with the stand-ins copied in', async () => {
    const t = labTransport(lab, 'lab-03');
    expect((await t.exec({ command: 'echo "$PATH"' })).stdout.startsWith('/opt/kubemix-lab/bin:')).toBe(true);
    expect((await t.exec({ command: 'kubeadm init' })).stdout).toBe('stand-in kubeadm init on lab-03\n');
    // A host's changes to its bin directory stay on that host.
    await t.exec({ command: 'rm /opt/kubemix-lab/bin/kubeadm' });
    expect(ssh('lab-04', 'command -v kubeadm')).toBe('/opt/kubemix-lab/bin/kubeadm\n');
    await t.close();
  });

  it('refuses to start over a running lab in the same directory', () => {
    const again = spawnSync('bash', [labScriptPath(), 'start', '2', lab.dir], { encoding: 'utf8' });
    expect(again.status).toBe(1);
    expect(again.stderr).toContain(`a lab is already running in ${lab.dir}`);
    expect(ssh('lab-01', 'hostname')).toBe('lab-01\n');
  });

  it('falls back to loopback addresses with --no-netns, and stops cleanly (twice)', async () => {
    const dir = testTempDirSync('lab-loop');
    const loop = await startLab({ count: 3, noNetns: true, dir });
    const pid = readFileSync(join(dir, 'hosts', 'lab-01', 'pid'), 'utf8').trim();
    try {
      expect(loop.mode).toBe('loopback');
      expect(loop.hosts.every((h) => h.address.startsWith('127.'))).toBe(true);
      const t = labTransport(loop, 'lab-03');
      expect((await t.exec({ command: 'hostname; ls -A /root' })).stdout).toBe('lab-03\n.ssh\n');
      await t.close();
    } finally {
      await loop.stop();
    }
    expect(existsSync(`/proc/${pid}`)).toBe(false);
    expect(existsSync(join(dir, 'supervisor.pid'))).toBe(false);
    const second = spawnSync('bash', [labScriptPath(), 'stop', dir], { encoding: 'utf8' });
    expect(second.status).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });

  it('removes a lab directory it created itself', async () => {
    const own = await startLab({ count: 1 });
    expect(existsSync(own.dir)).toBe(true);
    await own.stop();
    expect(existsSync(own.dir)).toBe(false);
  });

  it('stop removes namespaces and the bridge (netns mode)', async () => {
    const dir = testTempDirSync('lab-stop');
    mkdirSync(dir, { recursive: true });
    const small = await startLab({ count: 2, dir });
    const id = /ID=(\d+)/.exec(readFileSync(join(dir, 'lab.env'), 'utf8'))![1];
    await small.stop();
    if (small.mode === 'netns') {
      expect(execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' })).not.toContain(`kmx-lab-${id}-`);
      expect(spawnSync('ip', ['link', 'show', `kmxbr${id}`]).status).not.toBe(0);
    }
    rmSync(dir, { recursive: true, force: true });
  });
});
