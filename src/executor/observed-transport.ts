import type {
  ConnectionDetail,
  ConnectionReport,
  ConnectionState,
  ExecRequest,
  GetRequest,
  PutRequest,
  Transport,
} from '../transport/types.js';
import type { CommandResult } from '../types/command-result.js';

/**
 * A transport that reports its connection's life (opened, closed, a connect that failed) with
 * where and how it connects: what -vvv shows. It sees every connect, the pool's and those a
 * module makes itself (wait_for_connection, reboot), since both go through the same object.
 */
export class ObservedTransport implements Transport {
  private open = false;

  constructor(
    private readonly inner: Transport,
    private readonly report: (report: ConnectionReport) => void,
  ) {}

  get host(): string {
    return this.inner.host;
  }

  get kind(): Transport['kind'] {
    return this.inner.kind;
  }

  async connect(): Promise<void> {
    try {
      await this.inner.connect();
    } catch (error) {
      this.tell('failed', error instanceof Error ? error.message : String(error));
      throw error;
    }
    if (this.open) return;
    this.open = true;
    this.tell('opened');
  }

  /** Reports that a task uses the connection already open (nothing when it is not open). */
  reused(): void {
    if (this.open) this.tell('reused');
  }

  exec(request: ExecRequest): Promise<CommandResult> {
    return this.inner.exec(request);
  }

  put(request: PutRequest): Promise<CommandResult> {
    return this.inner.put(request);
  }

  get(request: GetRequest): Promise<CommandResult> {
    return this.inner.get(request);
  }

  async close(): Promise<void> {
    await this.inner.close();
    if (!this.open) return;
    this.open = false;
    this.tell('closed');
  }

  connectionDetail(): ConnectionDetail | undefined {
    return this.inner.connectionDetail?.();
  }

  private tell(state: ConnectionState, message?: string): void {
    const detail = this.connectionDetail();
    this.report({
      host: this.host,
      state,
      ...(detail ? { detail } : {}),
      ...(message === undefined ? {} : { message }),
    });
  }
}
