import type { ConnectionReport, Transport } from '../transport/types.js';
import type { InventoryHost } from '../types/inventory.js';
import { ObservedTransport } from './observed-transport.js';

/**
 * Secrets of one host's connection that kubemix already holds: passwords an Ansible inventory
 * writes inline or looks up (see src/playbook/connection-secrets.ts). Never serialized.
 */
export interface ConnectionSecrets {
  /** SSH password login, or the WinRM account's password. */
  password?: string;
  /** sudo's password for become. */
  becomePassword?: string;
  /** Passphrase of the SSH private key. */
  passphrase?: string;
}

/**
 * Makes a (not yet connected) transport for a host, with the connection secrets the caller
 * resolved for it. Injected so the engine never imports a wire.
 */
export type TransportFactory = (host: InventoryHost, secrets?: ConnectionSecrets) => Transport;

/**
 * One connected transport per host, opened on first use and reused by every task (what makes
 * an orchestrator fast: one login per host per run).
 */
export class TransportPool {
  private readonly open = new Map<string, Promise<Transport>>();
  /** Connects not yet settled: closeAll does not wait for them. */
  private readonly connecting = new Set<Promise<Transport>>();

  /**
   * Set once closeAll() has closed what was open: a connect still under way then (a stopped run)
   * ends after the run has told its end, and is not reported.
   */
  private closed = false;
  /** The observed transports by host, to report a reuse without waiting for a promise. */
  private readonly observed = new Map<string, ObservedTransport>();

  /**
   * @param onConnection told when an SSH or WinRM connection opens, is reused by a later get(),
   *   closes or fails to open, with where and how it connects (the engine emits `connection`
   *   events from it, which -vvv shows). Local hosts report nothing.
   */
  constructor(
    private readonly factory: TransportFactory,
    private readonly onConnection?: (report: ConnectionReport) => void,
  ) {}

  /** The factory's transport, observed when someone listens and it has a wire. */
  private make(host: InventoryHost): Transport {
    const transport = this.factory(host);
    if (!this.onConnection || transport.kind === 'local') {
      this.observed.delete(host.name);
      return transport;
    }
    const observed = new ObservedTransport(transport, (report) => {
      if (!this.closed) this.onConnection?.(report);
    });
    this.observed.set(host.name, observed);
    return observed;
  }

  /** The host's transport, connecting once. A failed connect is forgotten so the next call retries. */
  get(host: InventoryHost): Promise<Transport> {
    let pending = this.open.get(host.name);
    if (pending) this.observed.get(host.name)?.reused();
    if (!pending) {
      const transport = this.make(host);
      const connecting = transport.connect().then(() => transport);
      pending = connecting;
      this.connecting.add(connecting);
      connecting.then(
        () => this.connecting.delete(connecting),
        () => {
          this.connecting.delete(connecting);
          // Only if it is still the host's entry: unconnected() may have replaced it meanwhile.
          if (this.open.get(host.name) === connecting) this.open.delete(host.name);
        },
      );
      this.open.set(host.name, pending);
    }
    return pending;
  }

  /**
   * The host's transport without waiting for it to connect: for a task that begins by waiting for
   * the host to come up (wait_for_connection connects it itself, retrying). Like Ansible, which
   * never connects before a task runs. Later get() calls return the same transport.
   */
  unconnected(host: InventoryHost): Transport {
    // An earlier task may have connected to the host already (a provider task delegating to a
    // machine it then made again): that transport is closed, not left open beside the new one.
    const previous = this.open.get(host.name);
    if (previous) void previous.then((t) => t.close()).catch(() => undefined);
    const transport = this.make(host);
    this.open.set(host.name, Promise.resolve(transport));
    return transport;
  }

  /** Drops a host's transport (after a lost connection) so the next get() reconnects. */
  async forget(hostName: string): Promise<void> {
    const pending = this.open.get(hostName);
    this.open.delete(hostName);
    if (pending) await pending.then((t) => t.close()).catch(() => undefined);
  }

  /**
   * Closes every connection. One still connecting (the run was stopped mid-handshake) is closed
   * when its connect ends, without waiting: stopping must not wait out a handshake timeout.
   */
  async closeAll(): Promise<void> {
    const all = [...this.open.values()];
    this.open.clear();
    await Promise.all(
      all.map((pending) => {
        const closed = pending.then((t) => t.close()).catch(() => undefined);
        return this.connecting.has(pending) ? undefined : closed;
      }),
    );
    this.closed = true;
  }
}
