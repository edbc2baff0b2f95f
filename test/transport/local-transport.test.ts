import { describe, expect, it } from 'vitest';
import { LocalTransport } from '../../src/transport/local/index.js';

describe('LocalTransport', () => {
  const transport = new LocalTransport();

  it('returns stdout, stderr and exit code in one result shape', async () => {
    const result = await transport.exec({ command: 'echo out; echo err >&2; exit 3' });
    expect(result).toMatchObject({
      exitCode: 3,
      stdout: 'out\n',
      stderr: 'err\n',
      failed: true,
      timedOut: false,
      host: 'localhost',
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('kills a command that outlives its timeout and reports timedOut', async () => {
    const result = await transport.exec({ command: 'sleep 30', timeoutMs: 200 });
    expect(result.timedOut).toBe(true);
    expect(result.failed).toBe(true);
    expect(result.exitCode).toBeNull();
  });

  it('shows the display form instead of the command', async () => {
    const result = await transport.exec({
      command: 'echo s3cret >/dev/null',
      display: 'echo *** >/dev/null',
    });
    expect(result.command).toBe('echo *** >/dev/null');
  });

  it('feeds stdin and streams output', async () => {
    const chunks: string[] = [];
    const result = await transport.exec({
      command: 'cat',
      stdin: 'hello',
      onOutput: (c) => chunks.push(c.data),
    });
    expect(result.stdout).toBe('hello');
    expect(chunks.join('')).toBe('hello');
  });
});
