import { readFile } from 'node:fs/promises';
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

/** Collects events. */
export function eventLog(): { events: RunEvent[]; onEvent: (e: RunEvent) => void } {
  const events: RunEvent[] = [];
  return { events, onEvent: (e) => events.push(e) };
}
