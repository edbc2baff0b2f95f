import { describe, expect, it } from 'vitest';
import { SpecError } from '../../src/errors/index.js';
import { parseSpecText } from '../../src/spec/parse.js';
import { SECRET_REF_MESSAGE } from '../../src/spec/schema.js';
import { parseShortForm } from '../../src/spec/short-form.js';

const SECRET = 'Tr0ub4dor&3-do-not-print';

function errorText(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (!(error instanceof SpecError)) throw error;
    return `${error.message}\n${JSON.stringify(error.issues)}\n${String(error.stack)}`;
  }
  throw new Error('expected a SpecError');
}

const base = [
  'name: s',
  'provider:',
  '  type: static',
  '  hosts:',
  '    - name: cp-01',
  '      address: 10.0.0.1',
  '      group: control-plane',
];

describe('secrets never appear in errors', () => {
  it.each([
    ['an inline password', `      credentials: { password: "${SECRET}" }`],
    ['an inline private key', `      credentials: { privateKey: "${SECRET}" }`],
    ['a value under an unknown key', `      credentials: { password: { value: "${SECRET}" } }`],
    ['a secret as a key', `      credentials: { password: { "${SECRET}": 1 } }`],
    ['a number', '      credentials: { passphrase: 123456 }'],
  ])('%s', (_what, line) => {
    const text = errorText(() => parseSpecText([...base, line].join('\n'), 'spec.yaml'));
    expect(text).toContain(SECRET_REF_MESSAGE);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('123456');
  });

  it('in EC2 credentials, which the spec no longer takes (the AWS SDK chain provides them)', () => {
    const spec = [
      'name: s',
      'provider:',
      '  type: ec2',
      '  region: eu-west-1',
      '  operatorCidr: 198.51.100.7/32',
      `  credentials: { accessKeyId: AKIA, secretAccessKey: "${SECRET}" }`,
    ];
    const text = errorText(() => parseSpecText(spec.join('\n'), 'spec.yaml'));
    expect(text).toContain('provider.credentials: unknown key "credentials"');
    expect(text).not.toContain(SECRET);
  });

  it('in a hypervisor address with a password', () => {
    const text = errorText(() =>
      parseShortForm('k8s-libvirt-1-1-1', { hypervisors: [`root:${SECRET}@10.0.0.1`] }),
    );
    expect(text).toContain('must not contain a password');
    expect(text).not.toContain(SECRET);
  });
});
