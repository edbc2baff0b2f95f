import type { Client } from 'ssh2';
import { openConnection, TransientConnectError } from './connect.js';
import type { ResolvedTarget } from './resolve-options.js';

/** Retries of a connect that failed on the network (not on authentication or host keys). */
export interface ConnectRetries {
  /** Default 2. */
  retries?: number;
  /** First delay, doubled after each retry. Default 500. */
  retryDelayMs?: number;
}

/** Opens the target's connection through its jump hosts, retrying transient network errors with backoff. */
export async function openWithRetries(
  target: ResolvedTarget,
  options: ConnectRetries,
): Promise<{ client: Client; jumps: Client[] }> {
  const retries = options.retries ?? 2;
  let delay = options.retryDelayMs ?? 500;
  for (let attempt = 0; ; attempt++) {
    try {
      return await openChain(target);
    } catch (error) {
      if (!(error instanceof TransientConnectError) || attempt >= retries) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay *= 2;
    }
  }
}

/** Each jump hop tunnels to the next, the last to the target; a failure closes the hops opened so far. */
async function openChain(target: ResolvedTarget): Promise<{ client: Client; jumps: Client[] }> {
  const jumps: Client[] = [];
  try {
    let via: { client: Client; label: string } | undefined;
    for (const hop of target.jumps) {
      const client = await openConnection(via ? { ...hop, via } : hop);
      jumps.push(client);
      via = { client, label: `${hop.address}:${hop.port}` };
    }
    const client = await openConnection(via ? { ...target.params, via } : target.params);
    return { client, jumps };
  } catch (error) {
    for (const j of jumps) j.end();
    throw error;
  }
}
