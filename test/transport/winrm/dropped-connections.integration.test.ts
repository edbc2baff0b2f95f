import { afterEach, describe, expect, it } from 'vitest';
import type { WinrmTransport } from '../../../src/transport/winrm/winrm-transport.js';
import { startTestServer, type TestServer, transportFor } from './helpers.js';

// A WinRM server (or a proxy in front of it) that closes the TCP connection instead of answering
// a request. Requests that are safe to repeat are sent again on a new connection, after a fresh
// NTLM handshake (NTLM sessions are bound to the TCP connection, MS-WSMV 2.2.9.1); a Command or a
// Send is never repeated: the client cannot know whether the server carried it out.
let t: TestServer | undefined;
let transport: WinrmTransport | undefined;

afterEach(async () => {
  await transport?.close();
  await t?.server.stop();
  transport = undefined;
  t = undefined;
});

async function start(): Promise<{ server: TestServer; winrm: WinrmTransport }> {
  t = await startTestServer();
  transport = transportFor(t.server);
  return { server: t, winrm: transport };
}

/** Every connection the server saw was authenticated with its own NTLM handshake. */
function handshakesPerConnection(server: TestServer): void {
  expect(server.server.stats.requests['ntlm-authenticate']).toBe(server.server.stats.connections);
}

describe('a dropped connection during a request that is safe to repeat', () => {
  it.each([
    ['Create', 'opening the shell'],
    ['Receive', 'reading the output'],
    ['Signal', 'ending the command after it was Done'],
  ] as const)('%s (%s): the request is sent again on a new connection', async (action) => {
    const { server, winrm } = await start();
    server.server.controls.dropNext = { action, count: 1 };
    await winrm.connect();
    const result = await winrm.exec({ command: "Write-Output 'still here'" });
    expect(result).toMatchObject({ failed: false, exitCode: 0, stdout: 'still here\r\n', stderr: '' });
    expect(server.server.stats.dropped).toEqual({ [action]: 1 });
    expect(server.server.stats.connections).toBe(2);
    handshakesPerConnection(server);
    expect((await winrm.exec({ command: "Write-Output 'next'" })).stdout).toBe('next\r\n');
  });

  it.each([['ntlm-negotiate'], ['ntlm-authenticate']] as const)(
    'the NTLM handshake (%s): it starts again on a new connection',
    async (leg) => {
      const { server, winrm } = await start();
      server.server.controls.dropNext = { action: leg, count: 1 };
      await winrm.connect();
      expect(server.server.stats.dropped).toEqual({ [leg]: 1 });
      expect(server.server.stats.requests[leg]).toBe(2);
      expect((await winrm.exec({ command: "Write-Output 'ok'" })).stdout).toBe('ok\r\n');
      expect(server.server.stats.connections).toBe(2);
    },
  );

  it('Delete (closing the shell): sent again, the shell is gone from the server', async () => {
    const { server, winrm } = await start();
    await winrm.connect();
    expect(server.server.shells.shells.size).toBe(1);
    server.server.controls.dropNext = { action: 'Delete', count: 1 };
    await winrm.close();
    transport = undefined;
    expect(server.server.stats.dropped).toEqual({ Delete: 1 });
    expect(server.server.shells.shells.size).toBe(0);
  });
});

describe('a dropped connection during a request that must not be repeated', () => {
  it('Command, carried out before the drop: fails saying it is unknown whether it ran, and is not sent again', async () => {
    const { server, winrm } = await start();
    await winrm.connect();
    server.server.controls.dropNext = { action: 'Command', count: 1, afterProcessing: true };
    const result = await winrm.exec({ command: "Set-Content -LiteralPath 'C:\\ran.txt' -Value 'yes'" });
    expect(result.failed).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(result.stderr).toMatch(
      /^win1: connection to http:\/\/127\.0\.0\.1:\d+\/wsman lost before the Command was answered: it is unknown whether the command ran \(not sent again\)/,
    );
    expect(server.server.stats.requests['Command']).toBe(1);
    // It did run, once.
    expect(server.files.read('C:\\ran.txt')?.toString()).toBe('yes');
    expect((await winrm.exec({ command: "Write-Output 'next'" })).stdout).toBe('next\r\n');
  });

  it('Command, dropped before it arrived: the same answer (the client cannot tell the two apart)', async () => {
    const { server, winrm } = await start();
    await winrm.connect();
    server.server.controls.dropNext = { action: 'Command', count: 1 };
    const result = await winrm.exec({ command: "Set-Content -LiteralPath 'C:\\ran.txt' -Value 'yes'" });
    expect(result.stderr).toMatch(
      /lost before the Command was answered: it is unknown whether the command ran/,
    );
    expect(server.files.read('C:\\ran.txt')).toBeUndefined();
    expect(server.server.stats.requests['Command']).toBe(1);
  });

  it('Send (stdin): fails saying it is unknown whether the input arrived', async () => {
    const { server, winrm } = await start();
    await winrm.connect();
    server.server.controls.dropNext = { action: 'Send', count: 1 };
    const result = await winrm.exec({ command: '[Console]::In.ReadToEnd()', stdin: 'input' });
    expect(result.failed).toBe(true);
    expect(result.stderr).toMatch(
      /lost before the Send was answered: it is unknown whether the input arrived/,
    );
    expect(server.server.stats.requests['Send']).toBe(1);
  });
});
