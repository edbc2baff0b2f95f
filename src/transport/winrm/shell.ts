import type { WinrmChannel } from './channel.js';
import { WinrmProtocolError, WsmanFaultError } from './errors.js';
import type { ResolvedWinrmOptions } from './options.js';
import {
  Action,
  buildRequest,
  COMMAND_STATE_DONE,
  commandBody,
  createShellBody,
  type ParsedEnvelope,
  receiveBody,
  sendBody,
  signalBody,
  textOf,
  type XmlNode,
} from './soap.js';

/** What one Receive returned. */
export interface ReceiveChunk {
  stdout: Buffer;
  stderr: Buffer;
  done: boolean;
  exitCode?: number;
}

/**
 * One WinRS shell (cmd resource URI) on a channel: the WS-Management operations, each one
 * HTTP round trip. Higher-level behaviour (re-issuing Receive, timeouts) lives in the caller.
 */
export class WinrmShell {
  shellId: string | undefined;

  constructor(
    private readonly channel: WinrmChannel,
    private readonly options: ResolvedWinrmOptions,
  ) {}

  private async call(
    action: string,
    body: string,
    extra: {
      shellId?: string;
      options?: Record<string, string>;
      operationTimeoutSec?: number;
      maxEnvelopeSize?: number;
    } = {},
  ): Promise<ParsedEnvelope> {
    const header = {
      to: this.options.url,
      action,
      maxEnvelopeSize: extra.maxEnvelopeSize ?? this.options.maxEnvelopeSize,
      operationTimeoutSec: extra.operationTimeoutSec ?? this.options.operationTimeoutSec,
      locale: this.options.locale,
      ...(extra.shellId ? { shellId: extra.shellId } : {}),
      ...(extra.options ? { options: extra.options } : {}),
    };
    return this.channel.send((messageId) => buildRequest({ ...header, messageId }, body), action);
  }

  private requireShell(): string {
    if (!this.shellId) throw new WinrmProtocolError('no shell is open');
    return this.shellId;
  }

  /** Creates the shell: no profile, UTF-8 code page, stdin in, stdout and stderr out. */
  async open(): Promise<string> {
    const res = await this.call(Action.Create, createShellBody(), {
      options: { WINRS_NOPROFILE: 'TRUE', WINRS_CODEPAGE: '65001' },
    });
    const body = res.body;
    const fromShell = textOf(body?.Shell?.ShellId)?.trim();
    const selectors: XmlNode[] = body?.ResourceCreated?.ReferenceParameters?.SelectorSet?.Selector ?? [];
    const fromSelector = textOf(selectors.find((s) => s?.['@_Name'] === 'ShellId'))?.trim();
    const id = fromShell || fromSelector;
    if (!id) throw new WinrmProtocolError(`${this.options.host}: Create response carries no ShellId`);
    this.shellId = id;
    return id;
  }

  /** Starts a command; returns its CommandId. */
  async command(command: string, args: string[] = []): Promise<string> {
    const res = await this.call(Action.Command, commandBody(command, args), {
      shellId: this.requireShell(),
      options: { WINRS_CONSOLEMODE_STDIN: 'TRUE', WINRS_SKIP_CMD_SHELL: 'FALSE' },
    });
    const id = textOf(res.body?.CommandResponse?.CommandId)?.trim();
    if (!id) throw new WinrmProtocolError(`${this.options.host}: Command response carries no CommandId`);
    return id;
  }

  /** Sends one chunk of stdin. */
  async send(commandId: string, data: Buffer, end: boolean): Promise<void> {
    await this.call(Action.Send, sendBody(commandId, data, end), { shellId: this.requireShell() });
  }

  /** Envelope size used for Send; lowered once if the host refuses large envelopes. */
  private sendEnvelopeSize: number | undefined;

  /** Bytes of stdin that fit in one Send envelope (base64 grows 4/3; 4 KB for the rest). */
  get maxSendChunk(): number {
    const size = this.sendEnvelopeSize ?? this.options.sendEnvelopeSize;
    return Math.max(3, Math.floor(((size - 4096) * 3) / 4 / 3) * 3);
  }

  /**
   * Sends stdin, splitting `data` to fit; on w:EncodingLimit (the host's MaxEnvelopeSizekb is
   * smaller than ours) it drops to maxEnvelopeSize once and re-sends the refused chunk in pieces.
   */
  async sendAll(commandId: string, data: Buffer, end: boolean): Promise<void> {
    const step = this.maxSendChunk;
    for (let at = 0; at < data.length || (at === 0 && end); at += step) {
      const piece = data.subarray(at, at + step);
      const last = at + step >= data.length;
      try {
        await this.send(commandId, piece, end && last);
      } catch (error) {
        const tooLarge = error instanceof WsmanFaultError && /EncodingLimit$/.test(error.fault.subcode ?? '');
        if (!tooLarge || this.sendEnvelopeSize === this.options.maxEnvelopeSize) throw error;
        this.sendEnvelopeSize = this.options.maxEnvelopeSize;
        await this.sendAll(commandId, data.subarray(at), end);
        return;
      }
      if (data.length === 0) return;
    }
  }

  /**
   * One Receive round trip. A w:TimedOut fault surfaces as WsmanFaultError (timedOut=true).
   * Output comes in envelopes as large as Send's (fewer round trips for big outputs and file
   * reads): a host whose MaxEnvelopeSizekb is smaller uses its own limit instead (MS-WSMV
   * 3.1.4.1.7), so asking for more is safe.
   */
  async receive(commandId: string, operationTimeoutSec?: number): Promise<ReceiveChunk> {
    const res = await this.call(Action.Receive, receiveBody(commandId), {
      shellId: this.requireShell(),
      maxEnvelopeSize: this.sendEnvelopeSize ?? this.options.sendEnvelopeSize,
      ...(operationTimeoutSec !== undefined ? { operationTimeoutSec } : {}),
    });
    const response = res.body?.ReceiveResponse;
    if (!response)
      throw new WinrmProtocolError(`${this.options.host}: Receive response has no ReceiveResponse`);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    for (const stream of (response.Stream ?? []) as XmlNode[]) {
      const data = textOf(stream);
      if (!data) continue;
      const bytes = Buffer.from(data, 'base64');
      if (stream['@_Name'] === 'stderr') err.push(bytes);
      else out.push(bytes);
    }
    const state = response.CommandState;
    const done = state?.['@_State'] === COMMAND_STATE_DONE;
    const chunk: ReceiveChunk = { stdout: Buffer.concat(out), stderr: Buffer.concat(err), done };
    if (done) {
      const code = textOf(state?.ExitCode)?.trim();
      if (code !== undefined && code !== '') chunk.exitCode = Number(code);
    }
    return chunk;
  }

  /** Signals a command (terminate after it is done, or to stop it). */
  async signal(commandId: string, code: string): Promise<void> {
    await this.call(Action.Signal, signalBody(commandId, code), { shellId: this.requireShell() });
  }

  /** Deletes the shell on the server. */
  async delete(): Promise<void> {
    const shellId = this.requireShell();
    this.shellId = undefined;
    await this.call(Action.Delete, '', { shellId });
  }
}
