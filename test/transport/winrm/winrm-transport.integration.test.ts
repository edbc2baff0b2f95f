import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WinrmTransport } from '../../../src/transport/winrm/winrm-transport.js';
import { startTestServer, type TestServer, transportFor } from './helpers.js';

describe('WinrmTransport over NTLM with message encryption (http)', () => {
  let t: TestServer;
  let transport: WinrmTransport;
  beforeAll(async () => {
    t = await startTestServer();
    transport = transportFor(t.server);
    await transport.connect();
  });
  afterAll(async () => {
    await transport?.close();
    await t?.server.stop();
  });

  it('runs a PowerShell command and returns stdout and exit code 0', async () => {
    const result = await transport.exec({ command: "Write-Output 'hello'" });
    expect(result).toMatchObject({
      exitCode: 0,
      stdout: 'hello\r\n',
      stderr: '',
      failed: false,
      host: 'win1',
    });
  });
});
