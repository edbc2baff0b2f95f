import { execFileSync } from 'node:child_process';
import { constants as cryptoConstants, privateDecrypt } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  certificateFingerprint,
  decryptWindowsPassword,
  winrmCertificate,
} from '../../../src/provider/ec2/keys.js';
import { testTempDirSync } from '../../helpers/temp.js';

const dir = testTempDirSync('ec2-keys');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const openssl = (args: string[], input?: string) =>
  execFileSync('openssl', args, { input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });

describe('Windows password decryption', () => {
  // The vector comes from OpenSSL, independent of kubemix: a key, and a password encrypted with
  // RSA PKCS#1 v1.5 as EC2 does it (GetPasswordData: base64 of the ciphertext).
  const keyFile = join(dir, 'key.pem');
  openssl(['genrsa', '-traditional', '-out', keyFile, '2048']);
  const password = 'Km!7x$Qp2;zR"9wL(a)';
  writeFileSync(join(dir, 'password'), password);
  const ciphertext = execFileSync('openssl', [
    'pkeyutl',
    '-encrypt',
    '-inkey',
    keyFile,
    '-pkeyopt',
    'rsa_padding_mode:pkcs1',
    '-in',
    join(dir, 'password'),
  ]);
  const privateKeyPem = openssl(['rsa', '-in', keyFile, '-traditional']);

  it('decrypts an OpenSSL PKCS#1 v1.5 vector with node-forge', () => {
    expect(decryptWindowsPassword(ciphertext.toString('base64'), privateKeyPem)).toBe(password);
  });

  it('tolerates the line breaks EC2 puts in PasswordData', () => {
    const wrapped = ciphertext.toString('base64').replace(/(.{64})/g, '$1\r\n');
    expect(decryptWindowsPassword(`\r\n${wrapped}\r\n`, privateKeyPem)).toBe(password);
  });

  it('needs node-forge: Node 20 itself refuses PKCS#1 v1.5 private decryption', () => {
    expect(() =>
      privateDecrypt({ key: privateKeyPem, padding: cryptoConstants.RSA_PKCS1_PADDING }, ciphertext),
    ).toThrow();
  });
});

describe('WinRM HTTPS certificate', () => {
  it('is a PKCS#12 OpenSSL opens, whose certificate has the pinned SHA-256 fingerprint', () => {
    const cert = winrmCertificate('win-01', new Date('2026-11-23T00:00:00Z'));
    const pfx = join(dir, 'winrm.pfx');
    writeFileSync(pfx, Buffer.from(cert.pfxBase64, 'base64'));
    const pem = openssl(['pkcs12', '-in', pfx, '-nokeys', '-passin', 'pass:']);
    const fingerprint = openssl(['x509', '-noout', '-fingerprint', '-sha256'], pem);
    expect(fingerprint.trim().split('=')[1]?.replaceAll(':', '').toLowerCase()).toBe(cert.fingerprint);
    // What a resumed run pins, read back from the PKCS#12 kept in secrets.json.
    expect(certificateFingerprint(cert.pfxBase64)).toBe(cert.fingerprint);
    const text = openssl(['x509', '-noout', '-text'], pem);
    expect(text).toContain('TLS Web Server Authentication');
    expect(text).toContain('DNS:win-01');
  });
});
