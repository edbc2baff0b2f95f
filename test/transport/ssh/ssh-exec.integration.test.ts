import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Lab, startLab } from '../../../scripts/lab/lab.js';
import type { SshTransport } from '../../../src/transport/ssh/index.js';
import type { OutputChunk } from '../../../src/transport/types.js';
import { labTransport } from './helpers.js';

let lab: Lab;
let t: SshTransport;

beforeAll(async () => {
  lab = await startLab({ count: 2 });
  t = labTransport(lab, 'lab-01');
  await t.connect();
});

afterAll(async () => {
  await t?.close();
  await lab?.stop();
});

describe('SshTransport exec on a long-lived shell', () => {
  it('returns exit codes, and keeps stdout and stderr apart', async () => {
    const ok = await t.exec({ command: 'echo out; echo err >&2; hostname' });
    expect(ok).toMatchObject({ exitCode: 0, failed: false, timedOut: false, host: 'lab-01' });
    expect(ok.stdout).toBe('out\nlab-01\n');
    expect(ok.stderr).toBe('err\n');
    const bad = await t.exec({ command: 'echo partial; exit 7' });
    expect(bad).toMatchObject({ exitCode: 7, failed: true, stdout: 'partial\n' });
    const missing = await t.exec({ command: 'no-such-command-kmx' });
    expect(missing.exitCode).toBe(127);
    expect(missing.stderr).toContain('not found');
  });

  it('keeps output without a trailing newline, empty output and blank lines exactly', async () => {
    expect((await t.exec({ command: "printf 'no newline'" })).stdout).toBe('no newline');
    expect((await t.exec({ command: "printf 'err-no-nl' >&2" })).stderr).toBe('err-no-nl');
    expect((await t.exec({ command: 'true' })).stdout).toBe('');
    expect((await t.exec({ command: "printf '\\n\\n'" })).stdout).toBe('\n\n');
  });

  it('carries several MB of stdout and stderr intact', async () => {
    const result = await t.exec({
      command:
        'head -c 6000000 /dev/zero | tr "\\0" "x"; head -c 3000000 /dev/zero | tr "\\0" "e" >&2; echo tail',
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.length).toBe(6_000_005);
    expect(result.stdout.endsWith('xxtail\n')).toBe(true);
    expect(result.stderr.length).toBe(3_000_000);
    const sums = await t.exec({
      // The host's private state directory: /tmp on a lab host is this machine's /tmp.
      command: 'head -c 2000000 /dev/urandom | base64 -w 0 | tee /var/lib/kubemix-lab/rand | sha256sum',
    });
    const data = await t.exec({ command: 'cat /var/lib/kubemix-lab/rand; rm -f /var/lib/kubemix-lab/rand' });
    expect(createHash('sha256').update(data.stdout).digest('hex')).toBe(sums.stdout.slice(0, 64));
  });

  it('delivers stdin (binary-safe, with lines that look like delimiters) and gives /dev/null otherwise', async () => {
    const input = Buffer.from("line1\nEOF\n'quoted'\n\u00e9t\u00e9\nno-newline-at-end");
    const result = await t.exec({ command: 'cat; echo; wc -c', stdin: input });
    expect(result.stdout).toBe(`${input.toString()}\n0\n`);
    const counted = await t.exec({ command: 'wc -c', stdin: input });
    expect(counted.stdout.trim()).toBe(String(input.length));
    const none = await t.exec({ command: 'cat; echo done' });
    expect(none.stdout).toBe('done\n');
  });

  it('applies env and cwd per command without leaking into the next one', async () => {
    const first = await t.exec({
      command: 'pwd; echo "$KMX_A|$KMX_B"; export KMX_LEAK=1; cd /etc',
      env: { KMX_A: "it's", KMX_B: 'two words $HOME' },
      cwd: '/tmp',
    });
    expect(first.stdout).toBe("/tmp\nit's|two words $HOME\n");
    const second = await t.exec({ command: 'pwd; echo "[$KMX_A][$KMX_LEAK]"' });
    expect(second.stdout).toBe('/root\n[][]\n');
    const badCwd = await t.exec({ command: 'echo never', cwd: '/does/not/exist' });
    expect(badCwd.failed).toBe(true);
    expect(badCwd.stdout).toBe('');
    expect(badCwd.stderr).toContain('/does/not/exist');
  });

  it('survives a command that exits the shell, execs, or has a syntax error', async () => {
    expect((await t.exec({ command: 'exit 3' })).exitCode).toBe(3);
    expect((await t.exec({ command: 'exec echo replaced' })).stdout).toBe('replaced\n');
    const syntax = await t.exec({ command: 'if then fi (' });
    expect(syntax.failed).toBe(true);
    expect(syntax.exitCode).not.toBe(0);
    expect((await t.exec({ command: 'echo still here' })).stdout).toBe('still here\n');
  });

  it('streams live output to onOutput while the command runs', async () => {
    const chunks: OutputChunk[] = [];
    let sawFirstBeforeEnd = false;
    const result = await t.exec({
      command: 'echo first; echo warn >&2; sleep 0.4; echo second',
      onOutput: (chunk) => {
        chunks.push(chunk);
        if (chunk.data.includes('first')) sawFirstBeforeEnd = !chunks.some((c) => c.data.includes('second'));
      },
    });
    expect(result.stdout).toBe('first\nsecond\n');
    expect(sawFirstBeforeEnd).toBe(true);
    expect(
      chunks
        .filter((c) => c.stream === 'stdout')
        .map((c) => c.data)
        .join(''),
    ).toBe('first\nsecond\n');
    expect(
      chunks
        .filter((c) => c.stream === 'stderr')
        .map((c) => c.data)
        .join(''),
    ).toBe('warn\n');
  });

  it('kills only the timed-out command (and its children); the session keeps working', async () => {
    const result = await t.exec({ command: 'echo started; sleep 60 & sleep 61; echo never', timeoutMs: 500 });
    expect(result).toMatchObject({ timedOut: true, failed: true, exitCode: null });
    expect(result.stdout).toBe('started\n');
    expect(result.stderr).toContain('timed out');
    // Killed processes stay zombies until the host's init (sshd, PID 1 of the lab host) reaps
    // them, which a loaded machine can delay: count the ones still alive.
    const left = await t.exec({
      command: 'ps -eo stat=,comm= | awk \'$2 == "sleep" && $1 !~ /^Z/\' | wc -l',
    });
    expect(left.stdout.trim()).toBe('0');
    expect((await t.exec({ command: 'echo alive' })).stdout).toBe('alive\n');
  });

  it('cancels a command through an AbortSignal', async () => {
    // Aborted once the command runs (its first line arrived), not after a guessed delay.
    const controller = new AbortController();
    const result = await t.exec({
      command: 'echo started; sleep 30',
      signal: controller.signal,
      onOutput: (chunk) => chunk.data.includes('started') && controller.abort(),
    });
    expect(result.stdout).toBe('started\n');
    expect(result.failed).toBe(true);
    expect(result.timedOut).toBe(false);
    expect(result.stderr).toContain('cancelled');
    expect((await t.exec({ command: 'echo after' })).stdout).toBe('after\n');
  });

  it('runs 50 commands in parallel on one host without channel-open failures', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => t.exec({ command: `sleep 0.05; echo n${i}; echo e${i} >&2` })),
    );
    results.forEach((r, i) => {
      expect(r.failed, r.stderr).toBe(false);
      expect(r.stdout).toBe(`n${i}\n`);
      expect(r.stderr).toBe(`e${i}\n`);
    });
  });

  it('opens extra connections when channels run out (50 parallel PTY commands)', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => t.exec({ command: `sleep 0.1; echo p${i}`, pty: true })),
    );
    results.forEach((r, i) => {
      expect(r.failed, r.stderr).toBe(false);
      expect(r.stdout.replace(/\r/g, '')).toBe(`p${i}\n`);
    });
    const conns = await t.exec({ command: 'ss -Htn state established "( sport = :22 )" | wc -l' });
    expect(Number(conns.stdout.trim())).toBeGreaterThan(1);
  });

  it('becomes another user with sudo -n', async () => {
    const result = await t.exec({ command: 'id -un; pwd', become: { user: 'nobody' }, cwd: '/' });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('nobody\n/\n');
    const env = await t.exec({
      command: 'echo "$KMX_X"',
      become: { user: 'nobody' },
      env: { KMX_X: 'kept' },
    });
    expect(env.stdout).toBe('kept\n');
    const asRoot = await t.exec({ command: 'id -un', become: true });
    expect(asRoot.stdout).toBe('root\n');
  });

  it('times out a become command and kills it', async () => {
    // A duration no other process uses: /proc may show the whole machine's processes.
    const result = await t.exec({ command: 'sleep 31.7', become: { user: 'nobody' }, timeoutMs: 400 });
    expect(result.timedOut).toBe(true);
    const left = await t.exec({ command: "pgrep -u nobody -f '^sleep 31.7$' | wc -l" });
    expect(left.stdout.trim()).toBe('0');
  });

  it('with a become password, never lets the password reach the command when sudo does not ask', async () => {
    const pw = labTransport(lab, 'lab-01', { becomePassword: 'pw-never-leaks' });
    const result = await pw.exec({ command: 'id -un; cat', become: { user: 'nobody' }, stdin: 'payload' });
    expect(result.stdout).toBe('nobody\npayload');
    expect(result.stderr).toBe('');
    expect(result.failed).toBe(false);
    await pw.close();
  });

  it('answers a sudo password prompt on a fresh channel, and fails cleanly on a wrong password', async () => {
    // lab-02 gets a stand-in sudo (first on PATH) that asks for a password like sudo -S does.
    const setup = labTransport(lab, 'lab-02');
    const standIn = [
      '#!/bin/sh',
      'while [ $# -gt 0 ]; do case $1 in -p) prompt=$2; shift 2;; -u) user=$2; shift 2;; --) shift; break;; *) shift;; esac; done',
      'tries=0',
      'while :; do',
      '  printf %s "$prompt" >&2',
      '  IFS= read -r pw || { echo "sudo: no password was provided" >&2; exit 1; }',
      '  [ "$pw" = "$(cat /opt/kubemix-lab/sudo-password)" ] && break',
      '  tries=$((tries+1)); echo "Sorry, try again." >&2; [ $tries -ge 3 ] && exit 1',
      'done',
      'exec /usr/bin/sudo -n -u "$user" -- "$@"',
      '',
    ].join('\n');
    await setup.put({ remotePath: '/opt/kubemix-lab/bin/sudo', content: standIn, mode: 0o755 });
    await setup.put({ remotePath: '/opt/kubemix-lab/sudo-password', content: 'right-pw\n', mode: 0o600 });
    await setup.close();
    process.env['KMX_TEST_BECOME_PW'] = 'right-pw';
    const good = labTransport(lab, 'lab-02', { becomePassword: { env: 'KMX_TEST_BECOME_PW' } });
    const ok = await good.exec({ command: 'id -un; cat', become: { user: 'nobody' }, stdin: 'in' });
    expect(ok.stderr).toBe('');
    expect(ok.stdout).toBe('nobody\nin');
    expect(ok.command).toBe('id -un; cat');
    await good.close();
    const bad = labTransport(lab, 'lab-02', { becomePassword: 'wrong-pw' });
    const failed = await bad.exec({ command: 'id -un', become: { user: 'nobody' } });
    expect(failed.failed).toBe(true);
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toContain('Sorry, try again.');
    expect(`${failed.stdout}${failed.stderr}`).not.toContain('wrong-pw');
    await bad.close();
  });

  it('runs PTY commands on a fresh exec channel', async () => {
    const result = await t.exec({ command: 'tty; test -t 0 && echo is-a-tty', pty: true });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/\/dev\/pts\/\d+\r?\nis-a-tty/);
  });
});
