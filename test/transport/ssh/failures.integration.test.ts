import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Lab, startLab } from '../../../scripts/lab/lab.js';
import { ConnectionError, HostKeyError } from '../../../src/errors/index.js';
import { SshTransport } from '../../../src/transport/ssh/index.js';
import { labHost, labTransport } from './helpers.js';

let lab: Lab;

/** This process's established TCP connections to address:port (ss(8) lists them with their pid). */
async function established(address: string, port: number): Promise<string[]> {
  const { stdout } = await execa('ss', ['-Htnp', 'state', 'established', 'dst', `${address}:${port}`]);
  return stdout.split('\n').filter((line) => line.includes(`pid=${process.pid},`));
}

beforeAll(async () => {
  lab = await startLab({ count: 3 });
});

afterAll(async () => {
  await lab?.stop();
});

describe('unreachable hosts and lost connections', () => {
  it('reports a refused connection as ConnectionError after retrying, while other hosts carry on', async () => {
    await lab.killHost('lab-03');
    const down = labTransport(lab, 'lab-03', { retries: 1, retryDelayMs: 50 });
    const up = labTransport(lab, 'lab-02');
    const [downOutcome, upOutcome] = await Promise.allSettled([down.connect(), up.connect()]);
    expect(upOutcome.status).toBe('fulfilled');
    expect(downOutcome.status).toBe('rejected');
    const error = (downOutcome as PromiseRejectedResult).reason as Error;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(HostKeyError);
    expect(error.message).toBe(`lab-03: connection refused (${labHost(lab, 'lab-03').address}:22)`);
    expect((await up.exec({ command: 'hostname' })).stdout).toBe('lab-02\n');
    const result = await down.exec({ command: 'hostname' });
    expect(result).toMatchObject({ failed: true, exitCode: null, host: 'lab-03' });
    expect(result.stderr).toContain('connection refused');
    await up.close();
    await lab.startHost('lab-03');
  });

  it('reports a connect timeout for an address nobody answers', async () => {
    // An address inside the lab's own subnet with no host behind it: nothing leaves this machine.
    const h1 = labHost(lab, 'lab-01');
    const silent = lab.mode === 'netns' ? h1.address.replace(/\.\d+$/, '.250') : h1.address;
    const port = lab.mode === 'netns' ? 22 : 1;
    const t = new SshTransport({
      host: 'silent',
      address: silent,
      port,
      privateKey: { file: lab.privateKeyPath },
      knownHostsFiles: [lab.knownHostsPath],
      sshConfigPath: false,
      connectTimeoutMs: 300,
      retries: 0,
    });
    const error = await t.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(
      /^silent: (timed out after 300 ms connecting to|host unreachable|connection refused)/,
    );
  });

  it('returns a failed result naming the lost connection when sshd dies mid-command, then reconnects', async () => {
    const t = labTransport(lab, 'lab-01', { retries: 3, retryDelayMs: 100, keepaliveIntervalMs: 500 });
    await t.connect();
    // Kill the host once the command is really running: when its first line arrives.
    let started!: () => void;
    const running = t.exec({
      command: 'echo started; sleep 30; echo never',
      onOutput: (chunk) => chunk.data.includes('started') && started(),
    });
    await new Promise<void>((resolve) => {
      started = resolve;
    });
    await lab.killHost('lab-01');
    const result = await running;
    expect(result.failed).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(result.stdout).toBe('started\n');
    expect(result.stderr).toMatch(/connection to lab-01 \(root@[\d.]+:22\) was lost while the command ran/);
    // While the host is down, commands fail with a clear message instead of hanging.
    const whileDown = await t.exec({ command: 'true' });
    expect(whileDown.failed).toBe(true);
    expect(whileDown.stderr).toContain('connection refused');
    await lab.startHost('lab-01');
    // The next connect() (or exec) re-establishes the connection and the shell.
    await t.connect();
    expect((await t.exec({ command: 'hostname' })).stdout).toBe('lab-01\n');
    await t.close();
  });

  it('recovers from a lost connection between commands on the next exec', async () => {
    const t = labTransport(lab, 'lab-02', { retries: 5, retryDelayMs: 100 });
    expect((await t.exec({ command: 'echo one' })).stdout).toBe('one\n');
    await lab.killHost('lab-02');
    await lab.startHost('lab-02');
    // The dead connection is noticed (EOF) and replaced: the next command just runs.
    const result = await t.exec({ command: 'echo two' });
    expect(result).toMatchObject({ failed: false, exitCode: 0, stdout: 'two\n' });
    await t.close();
  });

  it('close() while connect() still reads its options: the connect fails as closed and no connection is left open', async () => {
    // Seen in a qemu e2e run under load: `up` ended (run-end written) but its process never
    // exited, holding an SSH connection to a hypervisor that was opened after its transport closed.
    const host = labHost(lab, 'lab-02');
    const t = labTransport(lab, 'lab-02');
    const connecting = t.connect();
    await t.close();
    const error = await connecting.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toBe('lab-02: the transport was closed while connecting');
    // Nothing of this process talks to the host's sshd (the file's earlier transports are closed).
    expect(await established(host.address, host.port ?? 22)).toEqual([]);
    // Not broken for good: the next use connects afresh.
    expect((await t.exec({ command: 'echo again' })).stdout).toBe('again\n');
    await t.close();
  });

  it('runs again after close()', async () => {
    const t = labTransport(lab, 'lab-02');
    await t.connect();
    await t.close();
    expect((await t.exec({ command: 'echo back' })).stdout).toBe('back\n');
    await t.close();
  });
});
