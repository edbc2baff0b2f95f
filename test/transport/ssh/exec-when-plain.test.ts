import { describe, expect, it } from 'vitest';
import { shQuote } from '../../../src/quote/index.js';
import { execWhenPlain } from '../../../src/transport/ssh/exec-when-plain.js';

describe('execWhenPlain', () => {
  it('runs plain words naming a program through exec', () => {
    expect(execWhenPlain('/bin/true')).toBe('exec /bin/true');
    expect(execWhenPlain('kubectl --kubeconfig /etc/kubernetes/admin.conf get nodes -o wide')).toBe(
      'exec kubectl --kubeconfig /etc/kubernetes/admin.conf get nodes -o wide',
    );
    // The command module's argv form: every word quoted, a quote inside one escaped.
    const argv = ['/usr/bin/printf', '%s|', "it's", 'a b', ''].map(shQuote).join(' ');
    expect(execWhenPlain(argv)).toBe(`exec ${argv}`);
  });

  it('leaves commands whose meaning exec would change', () => {
    for (const command of [
      'cd /tmp',
      'echo hi',
      'true',
      "'cd' /tmp",
      'export A=1',
      'A=1 kubectl get nodes',
      'if true; then :; fi',
      '-x',
      "''",
    ])
      expect(execWhenPlain(command), command).toBe(command);
  });

  it('leaves anything the shell would expand, redirect or combine', () => {
    for (const command of [
      'ls $HOME',
      'ls *.yaml',
      'ls ~',
      'a && b',
      'a | b',
      'a; b',
      'a > out',
      'a < in',
      'a &',
      'echo `id`',
      'echo "x"',
      'a\nb',
      'a # comment',
      'ls {a,b}',
      "printf 'unterminated",
      'a\\ b',
    ])
      expect(execWhenPlain(command), command).toBe(command);
  });
});
