import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Lab, startLab } from '../../../scripts/lab/lab.js';
import { pollUntil } from '../../../scripts/lab/poll.js';
import { ConnectionError, SecretRefError } from '../../../src/errors/index.js';
import { SshTransport } from '../../../src/transport/ssh/index.js';
import { testTempDirSync } from '../../helpers/temp.js';
import { labHost, labTransport } from './helpers.js';

let lab: Lab;
let dir: string;
let agent: ChildProcess | undefined;

const PASSPHRASE = 'correct horse battery';

/** Authorizes a public key for root on every lab host (through the lab key). */
async function authorize(pubFile: string) {
  const pub = readFileSync(pubFile, 'utf8');
  for (const host of lab.hosts) {
    const t = labTransport(lab, host.name);
    const r = await t.exec({ command: 'cat >> /root/.ssh/authorized_keys', stdin: pub });
    expect(r.failed).toBe(false);
    await t.close();
  }
}

beforeAll(async () => {
  lab = await startLab({ count: 3 });
  dir = testTempDirSync('auth');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', PASSPHRASE, '-f', join(dir, 'protected')]);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'agent-only')]);
  await authorize(join(dir, 'protected.pub'));
  await authorize(join(dir, 'agent-only.pub'));
});

afterAll(async () => {
  if (agent?.pid) process.kill(agent.pid, 'SIGTERM');
  await lab?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const base = (name: string) => {
  const host = labHost(lab, name);
  return {
    host: name,
    address: host.address,
    port: host.port ?? 22,
    user: 'root',
    knownHostsFiles: [lab.knownHostsPath],
    sshConfigPath: false as const,
    agent: false,
    retries: 0,
  };
};

async function hostnameVia(t: SshTransport): Promise<string> {
  try {
    await t.connect();
    return (await t.exec({ command: 'hostname' })).stdout.trim();
  } finally {
    await t.close();
  }
}

describe('authentication', () => {
  it('logs in with a passphrase-protected key, passphrase by env reference', async () => {
    process.env['KMX_TEST_KEY_PASS'] = PASSPHRASE;
    const t = new SshTransport({
      ...base('lab-01'),
      credentials: { privateKey: { file: join(dir, 'protected') }, passphrase: { env: 'KMX_TEST_KEY_PASS' } },
    });
    expect(await hostnameVia(t)).toBe('lab-01');
  });

  it('says clearly when the passphrase is wrong or missing, without echoing it', async () => {
    const wrong = new SshTransport({
      ...base('lab-01'),
      privateKey: { file: join(dir, 'protected') },
      passphrase: 'nope-wrong',
    });
    const error = await wrong.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toContain(`file ${join(dir, 'protected')}`);
    expect((error as Error).message).toContain('wrong passphrase');
    expect((error as Error).message).not.toContain('nope-wrong');
    const missing = new SshTransport({ ...base('lab-01'), privateKey: { file: join(dir, 'protected') } });
    await expect(missing.connect()).rejects.toThrow(/encrypted: give a passphrase/);
  });

  it('fails with SecretRefError naming an unset variable or unreadable key file', async () => {
    delete process.env['KMX_TEST_UNSET'];
    const t = new SshTransport({
      ...base('lab-01'),
      privateKey: { file: join(dir, 'protected') },
      passphrase: { env: 'KMX_TEST_UNSET' },
    });
    const error = await t.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SecretRefError);
    expect((error as Error).message).toContain('KMX_TEST_UNSET');
    const noFile = new SshTransport({
      ...base('lab-01'),
      credentials: { privateKey: { file: join(dir, 'absent') } },
    });
    await expect(noFile.connect()).rejects.toThrow(`cannot read file ${join(dir, 'absent')}`);
  });

  it('reports an authentication failure as a ConnectionError naming user, address and what was tried', async () => {
    const t = new SshTransport({
      ...base('lab-01'),
      user: 'nobody',
      privateKey: { file: lab.privateKeyPath },
    });
    const error = await t.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(
      /lab-01: authentication failed for nobody@[\d.]+:22 \(tried key file /,
    );
    // The exec path never throws: it returns the same message as a failed result.
    const result = await t.exec({ command: 'true' });
    expect(result).toMatchObject({ failed: true, exitCode: null, host: 'lab-01' });
    expect(result.stderr).toContain('authentication failed');
  });

  it('logs in through ssh-agent with a key that exists only in the agent', async () => {
    const sock = join(dir, 'agent.sock');
    agent = spawn('ssh-agent', ['-D', '-a', sock], { stdio: 'ignore' });
    await pollUntil(() => existsSync(sock), { timeoutMs: 2_000, intervalMs: 20 });
    execFileSync('ssh-add', ['-q', join(dir, 'agent-only')], {
      env: { ...process.env, SSH_AUTH_SOCK: sock },
      stdio: 'ignore',
    });
    unlinkSync(join(dir, 'agent-only'));
    const t = new SshTransport({ ...base('lab-02'), agent: sock, credentials: { user: 'root' } });
    expect(await hostnameVia(t)).toBe('lab-02');
    const prev = process.env['SSH_AUTH_SOCK'];
    process.env['SSH_AUTH_SOCK'] = sock;
    try {
      expect(await hostnameVia(new SshTransport({ ...base('lab-03'), agent: true }))).toBe('lab-03');
    } finally {
      if (prev === undefined) delete process.env['SSH_AUTH_SOCK'];
      else process.env['SSH_AUTH_SOCK'] = prev;
    }
  });
});

describe('ssh config and jump hosts', () => {
  it('honours Host, HostName, User, Port and IdentityFile from ssh config', async () => {
    const h1 = labHost(lab, 'lab-01');
    const config = join(dir, 'config');
    writeFileSync(
      config,
      [
        'Host first',
        `  HostName ${h1.address}`,
        '  User root',
        `  Port ${h1.port ?? 22}`,
        `  IdentityFile ${lab.privateKeyPath}`,
        'Host as-nobody',
        `  HostName ${h1.address}`,
        '  User nobody',
        `  IdentityFile ${lab.privateKeyPath}`,
        'Host wrong-port',
        `  HostName ${h1.address}`,
        '  Port 2999',
        '',
      ].join('\n'),
    );
    const opts = { knownHostsFiles: [lab.knownHostsPath], sshConfigPath: config, agent: false, retries: 0 };
    const t = new SshTransport({ host: 'web', address: 'first', ...opts });
    expect(await hostnameVia(t)).toBe('lab-01');
    expect(t.endpoint).toBe(`root@${h1.address}:22`);
    await expect(new SshTransport({ host: 'web', address: 'as-nobody', ...opts }).connect()).rejects.toThrow(
      `authentication failed for nobody@${h1.address}:22`,
    );
    await expect(new SshTransport({ host: 'web', address: 'wrong-port', ...opts }).connect()).rejects.toThrow(
      `connection refused (${h1.address}:2999)`,
    );
    // Explicit options win over the config.
    const explicit = new SshTransport({ host: 'web', address: 'as-nobody', user: 'root', ...opts });
    expect(await hostnameVia(explicit)).toBe('lab-01');
  });

  it('reaches a host through a jump host (ProxyJump), the connection coming from the jump host', async () => {
    const h1 = labHost(lab, 'lab-01');
    const t = new SshTransport({
      ...base('lab-02'),
      privateKey: { file: lab.privateKeyPath },
      jump: `root@${h1.address}:${h1.port ?? 22}`,
    });
    await t.connect();
    const client = (await t.exec({ command: 'echo "$SSH_CLIENT"; hostname' })).stdout.split('\n');
    expect(client[1]).toBe('lab-02');
    if (lab.mode === 'netns') expect(client[0]!.split(' ')[0]).toBe(h1.address);
    await t.close();
  });

  it('takes ProxyJump from ssh config, resolving the jump host through the config too', async () => {
    const [h1, h3] = [labHost(lab, 'lab-01'), labHost(lab, 'lab-03')];
    const config = join(dir, 'config-jump');
    writeFileSync(
      config,
      [
        'Host bastion',
        `  HostName ${h1.address}`,
        'Host inner',
        `  HostName ${h3.address}`,
        '  ProxyJump bastion',
        'Host *',
        '  User root',
        `  IdentityFile ${lab.privateKeyPath}`,
        '',
      ].join('\n'),
    );
    const t = new SshTransport({
      host: 'lab-03',
      address: 'inner',
      knownHostsFiles: [lab.knownHostsPath],
      sshConfigPath: config,
      agent: false,
    });
    await t.connect();
    const out = (await t.exec({ command: 'echo "$SSH_CLIENT"; hostname' })).stdout.split('\n');
    expect(out[1]).toBe('lab-03');
    if (lab.mode === 'netns') expect(out[0]!.split(' ')[0]).toBe(h1.address);
    await t.close();
  });

  it('reports a target the jump host cannot reach', async () => {
    const h1 = labHost(lab, 'lab-01');
    const t = new SshTransport({
      ...base('lab-01'),
      host: 'ghost',
      port: 2999,
      privateKey: { file: lab.privateKeyPath },
      jump: `root@${h1.address}`,
    });
    const error = await t.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toContain(`ghost: cannot reach ${h1.address}:2999 through jump host`);
  });
});
