import { describe, expect, it } from 'vitest';
import { hiddenFailureReason } from '../../src/engine/no-log.js';
import { Redactor } from '../../src/engine/redactor.js';

describe('hiddenFailureReason', () => {
  it('keeps the error, replaces known secrets and whatever of the hidden output it quotes', () => {
    const redactor = new Redactor();
    redactor.addWhole('hunter2');
    const reason = hiddenFailureReason(
      'assertion failed: got Adm1nPassw0rd for password hunter2',
      { stdout: 'Adm1nPassw0rd', stdout_lines: ['Adm1nPassw0rd'] },
      redactor,
    );
    expect(reason).toBe('assertion failed: got *** for password *** (output hidden by no_log)');
  });

  it('does not blank the error with the output stderr, where a program writes that error', () => {
    const reason = hiddenFailureReason(
      'ssh: connect to host 10.0.0.9 port 22: Connection refused',
      { stdout: '', stderr: 'ssh: connect to host 10.0.0.9 port 22: Connection refused' },
      new Redactor(),
    );
    expect(reason).toBe(
      'ssh: connect to host 10.0.0.9 port 22: Connection refused (output hidden by no_log)',
    );
  });
});
