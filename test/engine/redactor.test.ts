import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/engine/index.js';

describe('Redactor', () => {
  it('hides every known secret, the longest first', () => {
    const redactor = new Redactor();
    redactor.add('abc');
    redactor.add({ nested: ['abcdef', ''] });
    expect(redactor.text('token abcdef and abc')).toBe('token *** and ***');
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
