import { describe, expect, it } from 'vitest';
import { secretFragments, secretFragmentsOfText } from '../../src/engine/secret-fragments.js';

// Shapes of real secret outputs: `kubeadm init phase upload-certs --upload-certs` and
// `kubeadm token create --print-join-command` (kubernetes cmd/kubeadm/app/cmd/phases/init/uploadcerts.go
// and cmd/kubeadm/app/cmd/token.go print these lines), a kubeconfig user, JSON and key=value output.
const KEY = '6f0ad3c8e5b84f7c9d0e1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7';
const TOKEN = 'x7k2pq.a8b7c6d5e4f3g2h1';
const CA_HASH = 'sha256:1a1599705b8f23b3ab13d1f3bd1b6c45444ecfd7e0450774b7b724f2b019764c';

describe('secret fragments', () => {
  it('are the lines of a multi-line output, so its last line (the certificate key) is known alone', () => {
    const output = [
      '[upload-certs] Storing the certificates in Secret "kubeadm-certs" in the "kube-system" Namespace',
      '[upload-certs] Using certificate key:',
      KEY,
    ].join('\n');
    expect(secretFragmentsOfText(output)).toContain(KEY);
  });

  it('are the credential-like words of a command line, never its public CA hash, flags or address', () => {
    const fragments = secretFragmentsOfText(
      `kubeadm join 10.0.0.1:6443 --token ${TOKEN} --discovery-token-ca-cert-hash ${CA_HASH} `,
    );
    expect(fragments).toEqual([TOKEN]);
  });

  it('find values in key=value, YAML and JSON output', () => {
    expect(secretFragmentsOfText(`--token=${TOKEN}`)).toContain(TOKEN);
    expect(
      secretFragmentsOfText(`    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo=`),
    ).toContain('LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo');
    expect(secretFragmentsOfText(`{"token":"${TOKEN}","ttl":"24h"}`)).toContain(TOKEN);
  });

  it('keep a passphrase of plain words whole, and ignore values too short to redact safely', () => {
    expect(secretFragmentsOfText('correct horse battery staple')).toEqual(['correct horse battery staple']);
    expect(secretFragmentsOfText('yes\n0\ntrue')).toEqual([]);
    expect(secretFragmentsOfText('hunter22')).toEqual(['hunter22']);
  });

  it('walk a registered result (loop items too: Ansible shows them as item=None) but not the words describing the step', () => {
    const registered = {
      cmd: 'kubeadm token create --print-join-command',
      rc: 0,
      msg: 'non-zero return code',
      stdout_lines: [`kubeadm join 10.0.0.1:6443 --token ${TOKEN}`],
      results: [{ item: 'db-password-1', stdout: KEY }],
    };
    expect(secretFragments(registered).sort()).toEqual([KEY, TOKEN, 'db-password-1'].sort());
  });
});
