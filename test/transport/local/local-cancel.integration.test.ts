import { describe, expect, it } from 'vitest';
import { LocalTransport } from '../../../src/transport/local/index.js';

// A stop must reach a local command whenever it comes. The transport loads execa on its first
// command (an await): a signal aborted during that load, before the command started, once left
// `tail -f /dev/null` running for good, and a Ctrl-C right after START hung `kubemix run`.
describe('LocalTransport cancel', () => {
  it('a stop that comes before the command has started ends it at once', async () => {
    const transport = new LocalTransport();
    const controller = new AbortController();
    const running = transport.exec({ command: 'tail -f /dev/null', signal: controller.signal });
    controller.abort();
    const result = await running;
    expect(result.failed).toBe(true);
    expect(result.stderr).toBe('cancelled');
  }, 20_000);

  it('a stop while the command runs kills it', async () => {
    const transport = new LocalTransport();
    // Loaded once, so this command starts at once.
    await transport.exec({ command: 'true' });
    const controller = new AbortController();
    const running = transport.exec({
      command: 'echo started; tail -f /dev/null',
      signal: controller.signal,
      onOutput: () => controller.abort(),
    });
    const result = await running;
    expect(result.failed).toBe(true);
    expect(result.exitCode).not.toBe(0);
  }, 20_000);
});
