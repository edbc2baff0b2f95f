import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConnectionError } from '../../src/errors/index.js';
import type { TransportFactory } from '../../src/executor/transport-pool.js';
import { parseInventory } from '../../src/playbook/index.js';
import { LocalTransport } from '../../src/transport/local/index.js';
import type { RunEvent } from '../../src/types/events.js';

/** The repository's fixtures directory. */
export const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));

/** Loads an inventory fixture. */
export async function fixtureInventory(name: string) {
  const path = join(FIXTURES, 'inventories', name);
  return parseInventory(await readFile(path, 'utf8'), path);
}

/**
 * Real local processes for every host. Hosts whose name starts with `unreachable` get no
 * connection at all (the factory refuses, as a transport whose connect fails would).
 */
export const localTransports: TransportFactory = (host) => {
  if (host.name.startsWith('unreachable'))
    throw new ConnectionError(host.name, 'connection refused (test host without a transport)');
  return new LocalTransport(host.name);
};

/** Opens a TCP port on 127.0.0.1 and returns it with a closer. */
export async function openPort(): Promise<{ port: number; close: () => Promise<void> }> {
  const server: Server = createServer((socket) => {
    // Port probes connect and reset: that is expected, not an error of the test.
    socket.on('error', () => undefined);
    socket.end('kubemix test server\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return { port: address.port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Collects events. */
export function eventLog(): { events: RunEvent[]; onEvent: (e: RunEvent) => void } {
  const events: RunEvent[] = [];
  return { events, onEvent: (e) => events.push(e) };
}
