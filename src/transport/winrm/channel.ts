import { readFileSync } from 'node:fs';
import type { TLSSocket } from 'node:tls';
import { buildConnector, Client } from 'undici';
import { ConnectionError } from '../../errors/index.js';
import { decryptBody, ENCRYPTED_CONTENT_TYPE, encryptBody, isEncryptedContentType } from './encryption.js';
import { WinrmProtocolError, WsmanFaultError } from './errors.js';
import { answerLost, isDroppedConnection, isRepeatable, MAX_ATTEMPTS } from './lost-answers.js';
import { NtlmClient } from './ntlm/client.js';
import type { NtlmSessionSecurity } from './ntlm/session-security.js';
import type { ResolvedWinrmOptions } from './options.js';
import { actionName, newMessageId, type ParsedEnvelope, parseEnvelope } from './soap.js';

/** The HTTP status and the first bytes of a response the channel could not use. */
class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const normaliseFingerprint = (fp: string) => fp.replace(/:/g, '').toLowerCase();

/**
 * One HTTP connection to a WinRM service, authenticated once (NTLM is bound to the TCP
 * connection) and, for NTLM, sealing every message. It sends SOAP envelopes and returns them
 * parsed; SOAP faults become WsmanFaultError, everything the network does wrong becomes a
 * ConnectionError naming the host.
 */
export class WinrmChannel {
  private client: Client | undefined;
  private security: NtlmSessionSecurity | undefined;
  /** Bumped on every (re)connect of the socket: an NTLM context belongs to one generation. */
  private generation = 0;
  private securityGeneration = -1;
  /** Fingerprint mismatch seen by the connector, reported instead of undici's generic error. */
  private tlsFailure: string | undefined;

  constructor(private readonly options: ResolvedWinrmOptions) {}

  private get origin(): string {
    const url = new URL(this.options.url);
    return url.origin;
  }

  private makeClient(): Client {
    const { tls, connectTimeoutMs, operationTimeoutSec } = this.options;
    const pinned = tls.fingerprint ? normaliseFingerprint(tls.fingerprint) : undefined;
    const tlsOptions: Record<string, unknown> = {};
    if (this.options.scheme === 'https') {
      tlsOptions.rejectUnauthorized = !(tls.insecure || pinned);
      if (tls.caFile) tlsOptions.ca = readFileSync(tls.caFile);
      else if (tls.ca) tlsOptions.ca = tls.ca;
      if (tls.servername) tlsOptions.servername = tls.servername;
    }
    const base = buildConnector({ ...tlsOptions, timeout: connectTimeoutMs });
    const connect: buildConnector.connector = (opts, callback) => {
      base(opts, (error, socket) => {
        if (error || !socket) return callback(error ?? new Error('no socket'), null);
        if (pinned && 'getPeerCertificate' in socket) {
          const actual = normaliseFingerprint(
            (socket as TLSSocket).getPeerCertificate().fingerprint256 ?? '',
          );
          if (actual !== pinned) {
            this.tlsFailure = `TLS certificate fingerprint mismatch: expected sha256 ${pinned}, server presented ${actual || 'none'}`;
            socket.destroy();
            return callback(new Error(this.tlsFailure), null);
          }
        }
        socket.setNoDelay(true);
        callback(null, socket);
      });
    };
    const client = new Client(this.origin, {
      connect,
      pipelining: 1,
      // Close idle sockets before HTTP.sys does (IdleConnectionTimeout 120 s): a new socket just
      // means a new NTLM handshake, a socket closed under a request means a lost request.
      keepAliveTimeout: 60_000,
      keepAliveMaxTimeout: 60_000,
      // A Receive may legitimately wait OperationTimeout before the server answers.
      headersTimeout: (operationTimeoutSec + 60) * 1000,
      bodyTimeout: (operationTimeoutSec + 60) * 1000,
    });
    client.on('connect', () => {
      this.generation++;
    });
    client.on('disconnect', () => {
      this.security = undefined;
    });
    return client;
  }

  /** Drops the connection (and with it the NTLM context); the next send reconnects. */
  async reset(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.security = undefined;
    if (client) await client.destroy().catch(() => undefined);
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.security = undefined;
    if (client) await client.close().catch(() => client.destroy().catch(() => undefined));
  }

  private raw(
    headers: Record<string, string>,
    body: Buffer | string,
  ): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
    this.client ??= this.makeClient();
    const path = new URL(this.options.url).pathname;
    return this.client
      .request({
        method: 'POST',
        path,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        body,
      })
      .then(async (res) => ({
        status: res.statusCode,
        headers: res.headers,
        body: Buffer.from(await res.body.arrayBuffer()),
      }));
  }

  /** Runs the NTLM handshake on the current connection (NEGOTIATE, CHALLENGE, AUTHENTICATE). */
  private async authenticateNtlm(): Promise<void> {
    const ntlm = new NtlmClient({ account: this.options.user, password: this.options.password });
    this.options.onRequest?.('ntlm-negotiate');
    const first = await this.raw({ authorization: `Negotiate ${ntlm.negotiate().toString('base64')}` }, '');
    const header = [first.headers['www-authenticate']].flat().join(',');
    const token = /(?:Negotiate|NTLM)\s+([A-Za-z0-9+/=]+)/i.exec(header)?.[1];
    if (first.status !== 401 || !token) {
      throw new HttpStatusError(
        first.status,
        `server did not offer NTLM (HTTP ${first.status}, WWW-Authenticate: ${header || 'none'})`,
      );
    }
    const generation = this.generation;
    const result = ntlm.authenticate(Buffer.from(token, 'base64'));
    this.options.onRequest?.('ntlm-authenticate');
    const second = await this.raw({ authorization: `Negotiate ${result.message.toString('base64')}` }, '');
    if (second.status === 401) {
      throw new HttpStatusError(
        401,
        `authentication failed for user ${this.options.user} (wrong user or password; HTTP 401)`,
      );
    }
    if (second.status >= 300)
      throw new HttpStatusError(second.status, `NTLM authentication ended with HTTP ${second.status}`);
    if (generation !== this.generation)
      throw new HttpStatusError(0, 'connection was re-opened during NTLM authentication');
    this.security = result.security;
    this.securityGeneration = this.generation;
  }

  /** Makes sure the connection is up and authenticated; throws ConnectionError otherwise. */
  async ensureAuthenticated(): Promise<void> {
    if (this.options.auth !== 'ntlm') return;
    if (this.security && this.securityGeneration === this.generation) return;
    try {
      await this.authenticateNtlm();
    } catch (error) {
      throw this.connectionError(error, 'authenticate');
    }
  }

  /**
   * Sends one request and returns the parsed response. `action` is the WS-Management action URI;
   * `envelope` builds the request for a MessageID, which the response must relate to. A
   * connection that closes without answering is replaced (new socket, fresh NTLM handshake) and
   * the request sent again, as a new message with its own MessageID, when that is safe
   * (lost-answers.ts); otherwise it fails with AnswerLostError, saying what is unknown.
   */
  async send(envelope: (messageId: string) => string, action: string): Promise<ParsedEnvelope> {
    for (let attempt = 1; ; attempt++) {
      let sent = false;
      const messageId = newMessageId();
      try {
        return await this.exchange(envelope(messageId), action, messageId, () => {
          sent = true;
        });
      } catch (error) {
        if (!isDroppedConnection((error as Error).cause ?? error)) throw error;
        await this.reset();
        if (sent && !isRepeatable(action))
          throw answerLost(this.options.host, this.options.url, action, actionName(action), error);
        if (attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }

  /** One attempt: authenticate if needed, seal, send, check the answer. `onSent` marks the point of no return. */
  private async exchange(
    envelope: string,
    action: string,
    messageId: string,
    onSent: () => void,
  ): Promise<ParsedEnvelope> {
    const name = actionName(action);
    let response: { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer };
    let text: string;
    for (let attempt = 0; ; attempt++) {
      await this.ensureAuthenticated();
      const body = Buffer.from(envelope, 'utf8');
      const headers: Record<string, string> = { 'user-agent': 'kubemix winrm' };
      let security: NtlmSessionSecurity | undefined;
      let payload: Buffer = body;
      // Over https, TLS protects the body and Windows expects plain SOAP (pywinrm's 'auto' does
      // the same); over http every NTLM message is sealed.
      if (this.options.auth === 'ntlm' && this.options.scheme === 'http') {
        security = this.security!;
        payload = encryptBody(security, body);
        headers['content-type'] = ENCRYPTED_CONTENT_TYPE;
      } else if (this.options.auth === 'ntlm') {
        headers['content-type'] = 'application/soap+xml;charset=UTF-8';
      } else {
        headers['content-type'] = 'application/soap+xml;charset=UTF-8';
        headers.authorization = `Basic ${Buffer.from(`${this.options.user}:${this.options.password}`).toString('base64')}`;
      }
      try {
        this.options.onRequest?.(name);
        onSent();
        response = await this.raw(headers, payload);
      } catch (error) {
        throw this.connectionError(error, name);
      }
      // 401 on an NTLM connection: the server lost our context (a new socket); authenticate again once.
      if (response.status === 401 && this.options.auth === 'ntlm' && attempt === 0) {
        this.security = undefined;
        continue;
      }
      if (response.status === 401) {
        throw new ConnectionError(
          this.options.host,
          `authentication failed for user ${this.options.user} (HTTP 401)`,
        );
      }
      const contentType = [response.headers['content-type']].flat()[0];
      if (security && isEncryptedContentType(contentType)) {
        try {
          text = decryptBody(security, response.body).toString('utf8');
        } catch (error) {
          throw new WinrmProtocolError(
            `${this.options.host}: cannot decrypt the ${name} response: ${(error as Error).message}`,
            { cause: error },
          );
        }
      } else {
        text = response.body.toString('utf8');
      }
      break;
    }
    if (response.status !== 200 && response.status !== 500) {
      throw new WinrmProtocolError(
        `${this.options.host}: WinRM ${name} returned HTTP ${response.status}: ${text.slice(0, 200)}`,
      );
    }
    if (!text.trim())
      throw new WinrmProtocolError(
        `${this.options.host}: WinRM ${name} returned an empty body (HTTP ${response.status})`,
      );
    const parsed = parseEnvelope(text);
    if (parsed.fault) throw new WsmanFaultError(name, parsed.fault);
    if (response.status !== 200)
      throw new WinrmProtocolError(
        `${this.options.host}: WinRM ${name} returned HTTP ${response.status} without a fault`,
      );
    if (parsed.relatesTo !== messageId) {
      throw new WinrmProtocolError(
        `${this.options.host}: WinRM ${name} response relates to ${parsed.relatesTo ?? 'nothing'}, expected ${messageId}`,
      );
    }
    return parsed;
  }

  /** Turns a low-level failure into a one-line ConnectionError that says what went wrong where. */
  connectionError(error: unknown, phase: string): ConnectionError {
    if (error instanceof ConnectionError) return error;
    const url = this.options.url;
    const err = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
    const code = err.code ?? err.cause?.code ?? '';
    const message = `${err.message ?? err}${err.cause?.message ? ` (${err.cause.message})` : ''}`;
    let text: string;
    if (this.tlsFailure) {
      text = this.tlsFailure;
      this.tlsFailure = undefined;
    } else if (error instanceof HttpStatusError) text = error.message;
    else if (code === 'ECONNREFUSED') text = `connection refused at ${url}`;
    else if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT')
      text = `timed out connecting to ${url}`;
    else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') text = `cannot resolve ${this.options.address}`;
    else if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME/.test(code)) {
      text = `TLS certificate of ${url} is not trusted (${code}); set tls.caFile, tls.fingerprint or tls.insecure`;
    } else if (
      code === 'EPROTO' ||
      /wrong version number|packet length too long|ssl3_get_record/i.test(message)
    ) {
      text = `TLS handshake with ${url} failed: is the port speaking ${this.options.scheme === 'https' ? 'plain HTTP' : 'HTTPS'}? (${message})`;
    } else if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE') {
      text = `connection to ${url} lost during ${phase}: ${message}`;
    } else if (
      code === 'HPE_INVALID_CONSTANT' ||
      /HTTPParserError|Expected HTTP/i.test(`${err.name} ${message}`)
    ) {
      text = `${url} did not answer HTTP (is it HTTPS?): ${message}`;
    } else text = `${phase} failed at ${url}: ${message}`;
    return new ConnectionError(this.options.host, text, { cause: error });
  }
}
