import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scanDirectory, scanText } from '../../src/ci/secret-scan.js';
import { secretFragments } from '../../src/engine/index.js';
import { loadVersions } from '../../src/versions/versions.js';
import { testTempDir } from '../helpers/temp.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

// Made-up values of the shapes the scan must catch (none is a live credential).
const TOKEN = 'abcdef.0123456789abcdef';
const CERT_KEY = `${'f'.repeat(8)}${'0123456789abcdef'.repeat(3)}a1b2c3d4`;
const AWS_ID = 'AKIAIOSFODNN7EXAMPLE';
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const KEY_BODY = 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACDb';

describe('the secret scan', () => {
  it.each([
    [
      'kubeadm join token',
      `kubeadm join 10.0.0.10:6443 --token ${TOKEN} --discovery-token-ca-cert-hash sha256:${'e'.repeat(64)}`,
      TOKEN,
    ],
    ['kubeadm certificate key', `[upload-certs] Using certificate key:\n${CERT_KEY}`, CERT_KEY],
    ['kubeadm certificate key', `kubeadm join ... --control-plane --certificate-key ${CERT_KEY}`, CERT_KEY],
    [
      'private key',
      `-----BEGIN OPENSSH PRIVATE KEY-----\n${KEY_BODY}\n-----END OPENSSH PRIVATE KEY-----`,
      KEY_BODY,
    ],
    [
      'private key',
      `-----BEGIN RSA PRIVATE KEY-----\nMIIEow${KEY_BODY}\n-----END RSA PRIVATE KEY-----`,
      'MIIEow',
    ],
    ['AWS access key ID', `export AWS_ACCESS_KEY_ID=${AWS_ID}`, AWS_ID],
    ['AWS secret access key', `aws_secret_access_key = ${AWS_SECRET}`, AWS_SECRET],
    ['password', 'KUBEMIX_WINDOWS_PASSWORD=Sup3r-Secret!', 'Sup3r-Secret!'],
    ['password', '{"user":"Administrator","password":"Pa55word42"}', 'Pa55word42'],
    ['password', "net user Administrator -Password 'Winter2026'", 'Winter2026'],
    [
      'kubeconfig credential',
      `users:\n- name: admin\n  user:\n    client-key-data: ${'QUJD'.repeat(10)}`,
      'QUJD'.repeat(10),
    ],
  ])('finds and redacts a %s', (kind, text, secret) => {
    const scan = scanText(text, []);
    expect(scan.findings.map((f) => f.kind)).toEqual([kind]);
    expect(scan.redacted).not.toContain(secret);
    expect(scan.redacted).toContain('***');
  });

  it('leaves public look-alikes alone: digests, the CA hash, secret references, versions', () => {
    const versions = JSON.stringify(loadVersions(), null, 2);
    const text = [
      versions,
      `--discovery-token-ca-cert-hash sha256:${'e'.repeat(64)}`,
      'credentials: { user: Administrator, password: { env: KUBEMIX_WINSIM_PASSWORD } }',
      'password:\n  env: KUBEMIX_WINSIM_PASSWORD',
      '--token *** --certificate-key ***',
      'node.kubernetes.io/windows-build: 10.0.20348',
      'PWD=/root OLDPWD=/var/lib/kubelet --password-file=/etc/kubemix/pass',
    ].join('\n');
    expect(scanText(text, []).findings).toEqual([]);
  });

  it("redacts the run's own secret values wherever they turn up, as the engine's redactor cuts them", () => {
    const registered = `kubeadm join 10.0.0.10:6443 --token q7w8e9.r1t2y3u4i5o6p7a8 --discovery-token-ca-cert-hash sha256:${'e'.repeat(64)}`;
    const known = secretFragments(registered);
    const scan = scanText(
      'retrying with q7w8e9.r1t2y3u4i5o6p7a8 in the log\nand the password hunter2hunter2',
      [...known, 'hunter2hunter2'],
    );
    expect(scan.redacted).toBe('retrying with *** in the log\nand the password ***');
    expect(scan.findings).toEqual([
      { line: 1, kind: 'secret value of this run' },
      { line: 2, kind: 'secret value of this run' },
    ]);
  });

  it('scans every file of a directory, rewrites the ones with secrets and says where', async () => {
    const dir = await testTempDir('scan');
    dirs.push(dir);
    await mkdir(join(dir, 'hosts'));
    await writeFile(join(dir, 'hosts', 'lab-01.log'), `ok\nkubeadm token create printed ${TOKEN}\n`);
    await writeFile(join(dir, 'plan.txt'), 'nothing secret here\n');
    const result = await scanDirectory(dir, []);
    expect(result).toEqual({
      filesScanned: 2,
      findings: [{ file: 'hosts/lab-01.log', line: 2, kind: 'kubeadm join token' }],
    });
    expect(await readFile(join(dir, 'hosts', 'lab-01.log'), 'utf8')).toBe(
      'ok\nkubeadm token create printed ***\n',
    );
    expect(await readFile(join(dir, 'plan.txt'), 'utf8')).toBe('nothing secret here\n');
  });
});
