import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  entryMatchesHost,
  formatKnownHostsLine,
  keyFingerprint,
  keyTypeOf,
  knownHostsName,
  parseKnownHosts,
  verifyHostKey,
} from '../../../src/transport/ssh/index.js';
import { MAX_COMPILED_PATTERNS } from '../../../src/transport/ssh/known-hosts.js';
import { testTempDirSync } from '../../helpers/temp.js';

// Real keys from ssh-keygen, so fingerprints and hashed names are checked against OpenSSH itself.
let dir: string;
let keyA: { line: string; blob: Buffer; fingerprint: string };
let keyB: { line: string; blob: Buffer; fingerprint: string };

function makeKey(name: string, type = 'ed25519') {
  const path = join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', type, '-N', '', '-C', name, '-f', path]);
  const line = readFileSync(`${path}.pub`, 'utf8').trim();
  const fingerprint = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${path}.pub`], {
    encoding: 'utf8',
  }).split(' ')[1]!;
  return { line, blob: Buffer.from(line.split(' ')[1]!, 'base64'), fingerprint };
}

beforeAll(() => {
  dir = testTempDirSync('kh');
  keyA = makeKey('a');
  keyB = makeKey('b', 'ecdsa');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const keyPart = (line: string) => line.split(' ').slice(0, 2).join(' ');

describe('known_hosts parsing and host key checks', () => {
  it('computes OpenSSH SHA256 fingerprints and key types', () => {
    expect(keyFingerprint(keyA.blob)).toBe(keyA.fingerprint);
    expect(keyFingerprint(keyA.blob)).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    expect(keyTypeOf(keyA.blob)).toBe('ssh-ed25519');
    expect(keyTypeOf(keyB.blob)).toBe('ecdsa-sha2-nistp256');
    expect(keyTypeOf(Buffer.from([0, 0]))).toBe('');
  });

  it('parses plain, [host]:port, markers and comments; skips malformed lines', () => {
    const text = [
      '# comment',
      '',
      `web1,10.0.0.1 ${keyPart(keyA.line)} a comment`,
      `[10.0.0.2]:2222 ${keyPart(keyB.line)}`,
      `@revoked * ${keyPart(keyB.line)}`,
      `@cert-authority *.example ${keyPart(keyA.line)}`,
      '@unknown-marker host ssh-ed25519 AAAA',
      'broken-line-without-key',
      `host ssh-rsa ${keyA.line.split(' ')[1]}`,
    ].join('\n');
    const entries = parseKnownHosts(text, '/kh');
    expect(entries.map((e) => [e.patterns, e.marker, e.line])).toEqual([
      [['web1', '10.0.0.1'], undefined, 3],
      [['[10.0.0.2]:2222'], undefined, 4],
      [['*'], 'revoked', 5],
      [['*.example'], 'cert-authority', 6],
    ]);
    expect(entries[0]!.file).toBe('/kh');
  });

  it('matches hashed entries written by ssh-keygen -H, for port 22 and [host]:port names', () => {
    const file = join(dir, 'hashed');
    writeFileSync(file, `10.1.2.3 ${keyPart(keyA.line)}\n[10.1.2.4]:2200 ${keyPart(keyA.line)}\n`);
    execFileSync('ssh-keygen', ['-H', '-f', file], { stdio: 'ignore' });
    const entries = parseKnownHosts(readFileSync(file, 'utf8'));
    expect(entries).toHaveLength(2);
    expect(entries.every((e) => e.hashed && e.patterns === null)).toBe(true);
    expect(verifyHostKey({ entries, host: '10.1.2.3', key: keyA.blob }).status).toBe('known');
    expect(verifyHostKey({ entries, host: '10.1.2.4', port: 2200, key: keyA.blob }).status).toBe('known');
    expect(verifyHostKey({ entries, host: '10.1.2.4', key: keyA.blob }).status).toBe('unknown');
    expect(verifyHostKey({ entries, host: '10.1.2.3', port: 2200, key: keyA.blob }).status).toBe('unknown');
  });

  it('uses OpenSSH lookup names and pattern rules (wildcards, negation, case)', () => {
    expect(knownHostsName('h', 22)).toBe('h');
    expect(knownHostsName('h', 2222)).toBe('[h]:2222');
    const [entry] = parseKnownHosts(`*.lab,!bad.lab,[10.9.*]:* ${keyPart(keyA.line)}`);
    expect(entryMatchesHost(entry!, 'web.LAB')).toBe(true);
    expect(entryMatchesHost(entry!, 'bad.lab')).toBe(false);
    expect(entryMatchesHost(entry!, '[10.9.0.1]:2222')).toBe(true);
    expect(entryMatchesHost(entry!, 'lab')).toBe(false);
  });

  it('matches as before once more patterns were met than it keeps compiled', () => {
    // A long-lived process meets more names than the compiled-pattern cache keeps; what it
    // drops is compiled again, never mismatched.
    const [first] = parseKnownHosts(`*.first.lab,!bad.first.lab ${keyPart(keyA.line)}`);
    expect(entryMatchesHost(first!, 'a.first.lab')).toBe(true);
    const many = parseKnownHosts(
      Array.from(
        { length: MAX_COMPILED_PATTERNS + 10 },
        (_, i) => `host-${i}.lab ${keyPart(keyA.line)}`,
      ).join('\n'),
    );
    for (const [i, entry] of many.entries()) expect(entryMatchesHost(entry, `host-${i}.lab`)).toBe(true);
    expect(entryMatchesHost(first!, 'a.first.lab')).toBe(true);
    expect(entryMatchesHost(first!, 'bad.first.lab')).toBe(false);
    expect(entryMatchesHost(many[0]!, 'host-1.lab')).toBe(false);
  });

  it('reports a changed key with both fingerprints, and unknown hosts as unknown', () => {
    const entries = parseKnownHosts(`web1 ${keyPart(keyA.line)}\n`, '/etc/kh');
    const changed = verifyHostKey({ entries, host: 'web1', key: keyB.blob });
    expect(changed.status).toBe('changed');
    expect(changed.fingerprint).toBe(keyB.fingerprint);
    expect(changed.expected).toEqual([
      { fingerprint: keyA.fingerprint, keyType: 'ssh-ed25519', file: '/etc/kh', line: 1 },
    ]);
    expect(verifyHostKey({ entries, host: 'web2', key: keyB.blob }).status).toBe('unknown');
  });

  it('refuses @revoked keys even when a plain entry also matches', () => {
    const entries = parseKnownHosts(`web1 ${keyPart(keyA.line)}\n@revoked * ${keyPart(keyA.line)}\n`, 'kh');
    const check = verifyHostKey({ entries, host: 'web1', key: keyA.blob });
    expect(check.status).toBe('revoked');
    expect(check.revokedAt).toEqual({ file: 'kh', line: 2 });
  });

  it('ignores @cert-authority lines', () => {
    const entries = parseKnownHosts(`@cert-authority web1 ${keyPart(keyA.line)}\n`);
    expect(verifyHostKey({ entries, host: 'web1', key: keyA.blob }).status).toBe('unknown');
  });

  it('formats lines that OpenSSH finds again (ssh-keygen -F)', () => {
    const file = join(dir, 'formatted');
    writeFileSync(
      file,
      `${formatKnownHostsLine('10.3.3.3', 2222, keyA.blob)}\n${formatKnownHostsLine('10.3.3.4', 22, keyB.blob)}\n`,
    );
    const found = execFileSync('ssh-keygen', ['-F', '[10.3.3.3]:2222', '-f', file], { encoding: 'utf8' });
    expect(found).toContain(keyA.line.split(' ')[1]);
    const plain = execFileSync('ssh-keygen', ['-F', '10.3.3.4', '-f', file], { encoding: 'utf8' });
    expect(plain).toContain(keyB.line.split(' ')[1]);
  });
});
