import { describe, expect, it } from 'vitest';
import { shQuote } from '../../../src/quote/index.js';
import { innerScript, killScript, sudoMarkers } from '../../../src/transport/ssh/shell-script.js';
import { SudoGate } from '../../../src/transport/ssh/sudo-gate.js';

describe('shell script builders', () => {
  it('rejects environment names the shell cannot take (a programmer mistake)', () => {
    expect(() => innerScript({ command: 'true', env: { 'BAD-NAME': 'x' } })).toThrow(TypeError);
    expect(innerScript({ command: 'echo hi', env: { A_1: "v'" }, cwd: '/tmp' }).split('\n')).toEqual([
      "cd '/tmp' || exit 1",
      `export A_1=${shQuote("v'")}`,
      "eval 'echo hi'",
    ]);
  });

  it('refuses to build a kill for a nonsense pid', () => {
    expect(() => killScript(1)).toThrow(TypeError);
    expect(() => killScript(Number.NaN)).toThrow(TypeError);
    expect(killScript(42, { childrenOnly: true })).not.toContain('kill -STOP 42');
    expect(killScript(42, { asRoot: true }).startsWith('sudo -n /bin/sh -c ')).toBe(true);
  });
});

describe('SudoGate', () => {
  const markers = sudoMarkers('KMXtok');
  const run = (chunks: string[]) => {
    const events: string[] = [];
    let passed = '';
    const gate = new SudoGate(markers, {
      onPrompt: (n) => events.push(`prompt${n}`),
      onStarted: () => events.push('started'),
      pass: (d) => {
        passed += d.toString();
      },
    });
    for (const c of chunks) gate.push(Buffer.from(c));
    gate.end();
    return { events, passed };
  };

  it('answers one prompt, then lets stdin through once the command has started', () => {
    const { events, passed } = run([
      markers.prompt.slice(0, 5),
      `${markers.prompt.slice(5)}`,
      `${markers.started}\nwarn\n`,
    ]);
    expect(events).toEqual(['prompt1', 'started']);
    expect(passed).toBe('warn\n');
  });

  it('reports a second prompt (wrong password) and keeps sudo messages', () => {
    const { events, passed } = run([
      markers.prompt,
      `Sorry, try again.\n${markers.prompt}`,
      'sudo: no password was provided\n',
    ]);
    expect(events).toEqual(['prompt1', 'prompt2']);
    expect(passed).toBe('Sorry, try again.\nsudo: no password was provided\n');
  });

  it('starts without a prompt when sudo does not ask', () => {
    expect(run([`${markers.started}\n`]).events).toEqual(['started']);
  });
});
