import {
  type RunningWinrmServer,
  startWinrmServer,
  type WinrmServerOptions,
} from '../../../fixtures/winrm-server/server.js';
import { TestFileSystem } from '../../../fixtures/winrm-server/test-file-system.js';
import type { ScriptHostFaults } from '../../../fixtures/winrm-server/test-script-host.js';
import type { WinrmTransportOptions } from '../../../src/transport/winrm/options.js';
import { WinrmTransport } from '../../../src/transport/winrm/winrm-transport.js';

export const USER = 'vagrant';
export const PASSWORD = 'Pa55w.rd-Grüße';

/** A test server with its in-memory files and fault switches. */
export interface TestServer {
  server: RunningWinrmServer;
  files: TestFileSystem;
  faults: ScriptHostFaults;
}

export async function startTestServer(options: Partial<WinrmServerOptions> = {}): Promise<TestServer> {
  const files = new TestFileSystem();
  const faults: ScriptHostFaults = {};
  const server = await startWinrmServer({
    users: { [USER]: PASSWORD },
    defaultHandler: { files, faults },
    ...options,
  });
  return { server, files, faults };
}

/** A transport to a test server, NTLM over http unless told otherwise. */
export function transportFor(
  server: RunningWinrmServer,
  options: Partial<WinrmTransportOptions> = {},
): WinrmTransport {
  return new WinrmTransport({
    host: 'win1',
    address: server.host,
    port: server.port,
    scheme: server.https ? 'https' : 'http',
    auth: 'ntlm',
    user: USER,
    password: PASSWORD,
    ...options,
  });
}
