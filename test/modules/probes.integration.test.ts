import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runModule } from '../../src/executor/run-module.js';
import { findModule } from '../../src/modules/registry.js';
import { LocalTransport } from '../../src/transport/local/index.js';
import { openPort } from '../helpers/tcp-port.js';
import { testTempDir } from '../helpers/temp.js';
import { context } from './drive.js';

// wait_for's probes and command's creates/removes guards run by a real /bin/sh (LocalTransport):
// the unit tests feed these modules their probes' output; this proves the probes print it.
const transport = new LocalTransport('node1');
const run = (module: string, args: Record<string, unknown>) =>
  runModule({ module: findModule(module)!, args, context: context(), transport });

let server: Awaited<ReturnType<typeof openPort>>;
let listeningPort: number;
let closedPort: number;
let dir: string;

beforeAll(async () => {
  dir = await testTempDir('probes');
  server = await openPort('SSH-2.0-banner\n');
  listeningPort = server.port;
  // A port that was just free: bound, read, released.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as { port: number }).port;
  await new Promise((resolve) => probe.close(resolve));
});

afterAll(async () => {
  await server?.close();
});

describe('wait_for on a real shell', () => {
  it('sees an open port (and its banner), and times out on a closed one', async () => {
    expect(await run('wait_for', { host: '127.0.0.1', port: listeningPort, timeout: 5 })).toMatchObject({
      failed: false,
    });
    expect(
      await run('wait_for', {
        host: '127.0.0.1',
        port: listeningPort,
        search_regex: '^SSH-2\\.0',
        timeout: 5,
      }),
    ).toMatchObject({ failed: false });
    const closed = await run('wait_for', { host: '127.0.0.1', port: closedPort, timeout: 1, sleep: 1 });
    expect(closed).toMatchObject({ failed: true });
    expect(
      await run('wait_for', { host: '127.0.0.1', port: closedPort, state: 'stopped', timeout: 5 }),
    ).toMatchObject({ failed: false });
  });

  it('sees a file, its content, and its absence', async () => {
    const path = join(dir, 'app.log');
    await writeFile(path, 'starting\nready on 8080\n');
    expect(
      await run('wait_for', { path, search_regex: 'ready on (?P<port>\\d+)', timeout: 5 }),
    ).toMatchObject({
      failed: false,
    });
    expect(
      await run('wait_for', { path, search_regex: 'never printed', timeout: 1, sleep: 1 }),
    ).toMatchObject({
      failed: true,
    });
    expect(await run('wait_for', { path: join(dir, 'gone'), state: 'absent', timeout: 5 })).toMatchObject({
      failed: false,
    });
  });
});

describe('command guards on a real shell', () => {
  it('skips when `creates` exists or `removes` does not, and runs otherwise', async () => {
    const marker = join(dir, 'made');
    const make = { cmd: `touch ${marker}`, creates: marker };
    expect(await run('command', make)).toMatchObject({ changed: true, failed: false });
    expect(await run('command', make)).toMatchObject({ changed: false, failed: false });
    const remove = { cmd: `rm ${marker}`, removes: marker };
    expect(await run('command', remove)).toMatchObject({ changed: true, failed: false });
    expect(await run('command', remove)).toMatchObject({ changed: false, failed: false });
  });
});
