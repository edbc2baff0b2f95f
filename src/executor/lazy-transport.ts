import type { ConnectionDetail, ExecRequest, GetRequest, PutRequest, Transport } from '../transport/types.js';
import type { CommandResult } from '../types/command-result.js';
import { failedResult } from '../types/command-result.js';

/**
 * A transport whose implementation is loaded on first connect. WinRM pulls in undici and the
 * NTLM code (~0.25 s of start-up); Linux-only runs should not pay for it.
 */
export class LazyTransport implements Transport {
  private inner: Transport | undefined;

  constructor(
    readonly host: string,
    readonly kind: Transport['kind'],
    private readonly load: () => Promise<Transport>,
  ) {}

  async connect(): Promise<void> {
    this.inner ??= await this.load();
    await this.inner.connect();
  }

  exec(request: ExecRequest): Promise<CommandResult> {
    return this.inner
      ? this.inner.exec(request)
      : Promise.resolve(failedResult(request.display ?? request.command, 'not connected', 0, this.host));
  }

  put(request: PutRequest): Promise<CommandResult> {
    return this.inner
      ? this.inner.put(request)
      : Promise.resolve(failedResult(`put ${request.remotePath}`, 'not connected', 0, this.host));
  }

  get(request: GetRequest): Promise<CommandResult> {
    return this.inner
      ? this.inner.get(request)
      : Promise.resolve(failedResult(`get ${request.remotePath}`, 'not connected', 0, this.host));
  }

  connectionDetail(): ConnectionDetail | undefined {
    return this.inner?.connectionDetail?.();
  }

  async close(): Promise<void> {
    await this.inner?.close();
  }
}
