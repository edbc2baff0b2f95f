import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Lab, startLab } from '../../../scripts/lab/lab.js';
import { HostKeyError } from '../../../src/errors/index.js';
import { testTempDirSync } from '../../helpers/temp.js';
import { labHost, labTransport } from './helpers.js';

// This lab listens on port 2222, so every known_hosts entry is in the [host]:port form.
let lab: Lab;
let dir: string;
let realFingerprint: string;
let realKeyLine: string;
let otherKeyLine: string;
let otherFingerprint: string;
let address: string;

const fingerprintOf = (pub: string) =>
  execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', pub], { encoding: 'utf8' }).split(' ')[1]!;

beforeAll(async () => {
  lab = await startLab({ count: 2, port: 2222 });
  dir = testTempDirSync('hk');
  const pub = join(lab.dir, 'hosts', 'lab-01', 'ssh_host_ed25519_key.pub');
  realFingerprint = fingerprintOf(pub);
  realKeyLine = readFileSync(pub, 'utf8').split(' ').slice(0, 2).join(' ');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'other')]);
  otherKeyLine = readFileSync(join(dir, 'other.pub'), 'utf8').split(' ').slice(0, 2).join(' ');
  otherFingerprint = fingerprintOf(join(dir, 'other.pub'));
  address = labHost(lab, 'lab-01').address;
});

afterAll(async () => {
  await lab?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function connectWith(knownHosts: string, extra: Parameters<typeof labTransport>[2] = {}) {
  const t = labTransport(lab, 'lab-01', { knownHostsFiles: [knownHosts], retries: 0, ...extra });
  try {
    await t.connect();
    return (await t.exec({ command: 'hostname' })).stdout.trim();
  } finally {
    await t.close();
  }
}

describe('host key verification against known_hosts', () => {
  it('accepts the lab known_hosts ([host]:port entries) in strict mode', async () => {
    expect(readFileSync(lab.knownHostsPath, 'utf8')).toContain(`[${address}]:2222 `);
    expect(await connectWith(lab.knownHostsPath)).toBe('lab-01');
  });

  it('does not take a port-22 entry for a host on port 2222', async () => {
    const file = join(dir, 'port22');
    writeFileSync(file, `${address} ${realKeyLine}\n`);
    await expect(connectWith(file)).rejects.toThrow(/not in known_hosts/);
  });

  it('accepts hashed entries (ssh-keygen -H)', async () => {
    const file = join(dir, 'hashed');
    writeFileSync(file, readFileSync(lab.knownHostsPath));
    execFileSync('ssh-keygen', ['-H', '-f', file], { stdio: 'ignore' });
    expect(readFileSync(file, 'utf8')).not.toContain(address);
    expect(await connectWith(file)).toBe('lab-01');
  });

  it('refuses a changed key, naming the host and both fingerprints', async () => {
    const file = join(dir, 'changed');
    writeFileSync(file, `[${address}]:2222 ${otherKeyLine}\n`);
    const error = await connectWith(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostKeyError);
    const message = (error as HostKeyError).message;
    expect(message).toContain('lab-01');
    expect(message).toContain(otherFingerprint);
    expect(message).toContain(realFingerprint);
    expect(message).toContain('changed');
    expect((error as HostKeyError).host).toBe('lab-01');
  });

  it('refuses unknown hosts in strict mode', async () => {
    const file = join(dir, 'empty');
    writeFileSync(file, '');
    const error = await connectWith(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostKeyError);
    expect((error as Error).message).toContain(realFingerprint);
  });

  it('refuses @revoked keys', async () => {
    const file = join(dir, 'revoked');
    writeFileSync(file, `[${address}]:2222 ${realKeyLine}\n@revoked * ${realKeyLine}\n`);
    const error = await connectWith(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostKeyError);
    expect((error as Error).message).toMatch(/revoked/);
  });

  it('accept-new records an unknown key, then enforces it', async () => {
    const record = join(dir, 'cluster_known_hosts');
    expect(await connectWith(record, { hostKeyPolicy: 'accept-new', acceptNewFile: record })).toBe('lab-01');
    const recorded = readFileSync(record, 'utf8');
    expect(recorded).toBe(`[${address}]:2222 ${realKeyLine}\n`);
    // OpenSSH agrees with what was recorded.
    expect(
      execFileSync('ssh-keygen', ['-F', `[${address}]:2222`, '-f', record], { encoding: 'utf8' }),
    ).toContain(realKeyLine.split(' ')[1]);
    // Strict mode now trusts the recorded key.
    expect(await connectWith(record)).toBe('lab-01');
    // A later different key is refused even in accept-new mode, and nothing new is recorded.
    writeFileSync(record, `[${address}]:2222 ${otherKeyLine}\n`);
    const error = await connectWith(record, { hostKeyPolicy: 'accept-new', acceptNewFile: record }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(HostKeyError);
    expect(readFileSync(record, 'utf8')).toBe(`[${address}]:2222 ${otherKeyLine}\n`);
  });

  it('a host-key failure on one host leaves the others usable', async () => {
    const file = join(dir, 'only-lab-02');
    const lines = readFileSync(lab.knownHostsPath, 'utf8')
      .split('\n')
      .filter((l) => !l.startsWith(`[${address}]`));
    writeFileSync(file, `${lines.join('\n')}\n[${address}]:2222 ${otherKeyLine}\n`);
    const bad = labTransport(lab, 'lab-01', { knownHostsFiles: [file], retries: 0 });
    const good = labTransport(lab, 'lab-02', { knownHostsFiles: [file] });
    const [badOutcome, goodOutcome] = await Promise.allSettled([bad.connect(), good.connect()]);
    expect(badOutcome.status).toBe('rejected');
    expect(goodOutcome.status).toBe('fulfilled');
    const result = await bad.exec({ command: 'true' });
    expect(result.failed).toBe(true);
    expect(result.stderr).toContain('changed');
    expect((await good.exec({ command: 'hostname' })).stdout).toBe('lab-02\n');
    await bad.close();
    await good.close();
  });
});
