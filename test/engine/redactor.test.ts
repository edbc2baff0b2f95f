import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/engine/index.js';

describe('Redactor', () => {
  it('hides every known secret, the longest first', () => {
    const redactor = new Redactor();
    redactor.add('abcdef');
    redactor.add({ nested: ['abcdef123', ''] });
    expect(redactor.text('token abcdef123 and abcdef')).toBe('token *** and ***');
  });

  it('hides a line or a word of a multi-line secret wherever it is used, and knows what mentions one', () => {
    const redactor = new Redactor();
    const key = '6f0ad3c8e5b84f7c9d0e1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7';
    redactor.add(`[upload-certs] Using certificate key:\n${key}`);
    redactor.add(
      'kubeadm join 10.0.0.1:6443 --token x7k2pq.a8b7c6d5e4f3g2h1 --discovery-token-ca-cert-hash sha256:1a15',
    );
    expect(
      redactor.text(`kubeadm join 10.0.0.1:6443 --token x7k2pq.a8b7c6d5e4f3g2h1 --certificate-key ${key}`),
    ).toBe('kubeadm join 10.0.0.1:6443 --token *** --certificate-key ***');
    expect(redactor.mentions({ stdout: `joined with ${key}` })).toBe(true);
    expect(redactor.mentions({ stdout: 'joined' })).toBe(false);
  });

  it('hides a password too short to be a fragment wherever it stands as a whole value', () => {
    const redactor = new Redactor();
    redactor.add('Zq9');
    expect(redactor.text('password: Zq9')).toBe('password: Zq9');
    redactor.addWhole('Zq9');
    expect(redactor.text('password: Zq9\nZq9\n"Zq9" key=Zq9 \'Zq9\'')).toBe(
      'password: ***\n***\n"***" key=*** \'***\'',
    );
    // Inside longer words it stays: blanking every "Zq9" would garble unrelated output.
    expect(redactor.text('xZq9y Zq9x _Zq9')).toBe('xZq9y Zq9x _Zq9');
    expect(redactor.mentions({ stdout: 'sudo Zq9' })).toBe(true);
    expect(redactor.mentions({ stdout: 'Zq99' })).toBe(false);
    redactor.addWhole('a.b+(c');
    expect(redactor.text('pw=a.b+(c; not aXb+(c')).toBe('pw=***; not aXb+(c');
    redactor.addWhole('correct horse battery staple');
    expect(redactor.text('said correct horse battery staple.')).toBe('said ***.');
  });

  it('redacts command, stdout and stderr of results inside events', () => {
    const redactor = new Redactor();
    redactor.add('s3cret');
    const result = {
      command: 'login s3cret',
      exitCode: 1,
      stdout: 's3cret\n',
      stderr: 'bad s3cret',
      durationMs: 1,
      failed: true,
      timedOut: false,
    };
    const event = redactor.event({
      type: 'step-end',
      time: 't',
      task: 't',
      host: 'h',
      step: 's',
      status: 'failed',
      result,
    });
    expect(JSON.stringify(event)).not.toContain('s3cret');
    expect(
      redactor.event({ type: 'run-end', time: 't', status: 'failed', durationMs: 1, message: 'x s3cret' }),
    ).toMatchObject({ message: 'x ***' });
    expect(
      redactor.event({
        type: 'step-output',
        time: 't',
        task: 't',
        host: 'h',
        step: 's',
        stream: 'stdout',
        data: 's3cret',
      }),
    ).toMatchObject({ data: '***' });
  });

  it('passes events through untouched while no secret is known', () => {
    const event = { type: 'task-start', time: 't', task: 'a', hosts: ['h'] } as const;
    expect(new Redactor().event(event)).toBe(event);
  });
});
