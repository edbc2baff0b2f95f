import { readFile } from 'node:fs/promises';
import { KubemixError, SecretRefError } from '../../errors/index.js';
import type { SecretRef } from '../../types/inventory.js';

/** TLS settings for HTTPS (5986). Exactly one way of trusting the server is expected. */
export interface WinrmTlsOptions {
  /** PEM file of the CA (or the self-signed certificate) to trust. */
  caFile?: string;
  /** PEM text of the CA to trust (instead of caFile). */
  ca?: string | Buffer;
  /** SHA-256 fingerprint of the server certificate (hex, colons optional): pins that certificate. */
  fingerprint?: string;
  /** Accept any certificate. Only for throwaway lab hosts. */
  insecure?: boolean;
  /** Name to check the certificate against when it differs from the address. */
  servername?: string;
}

/** Everything a WinrmTransport needs to reach one Windows host. */
export interface WinrmTransportOptions {
  /** Inventory name of the host (used in messages and results). */
  host: string;
  /** IP or DNS name to connect to. */
  address: string;
  /** Defaults to 5985 for http, 5986 for https. */
  port?: number;
  /** Defaults to http with NTLM (Windows' default listener), https when auth is basic. */
  scheme?: 'http' | 'https';
  /** URL path of the service, `/wsman` by default. */
  path?: string;
  /** `ntlm` (message encryption over http) or `basic` (https only unless allowed). Default ntlm. */
  auth?: 'ntlm' | 'basic';
  /** Account: `user`, `DOMAIN\user` or `user@domain`. */
  user: string;
  /** The password, or a reference resolved at connect time. Never logged. */
  password: string | SecretRef;
  /** Basic over plain http sends the password in clear text; refused unless this is true. */
  allowBasicOverHttp?: boolean;
  tls?: WinrmTlsOptions;
  /** w:OperationTimeout: how long the server may hold a Receive. Default 20 s. */
  operationTimeoutSec?: number;
  /** w:MaxEnvelopeSize in bytes: the largest response we accept, and requests' size. Default 153600. */
  maxEnvelopeSize?: number;
  /**
   * Size of Send (stdin) envelopes, bytes. Default 512000 (MaxEnvelopeSizekb 500, the default
   * since Windows Server 2012); falls back to maxEnvelopeSize when the host answers w:EncodingLimit.
   */
  sendEnvelopeSize?: number;
  /** TCP (and TLS) connect timeout. Default 10 s. */
  connectTimeoutMs?: number;
  locale?: string;
  /** Called before every HTTP request with the WS-Management action name (counts round trips). */
  onRequest?: (action: string) => void;
}

/** Options with every default applied and the password resolved. */
export interface ResolvedWinrmOptions
  extends Required<Omit<WinrmTransportOptions, 'tls' | 'onRequest' | 'password'>> {
  password: string;
  tls: WinrmTlsOptions;
  url: string;
  onRequest?: (action: string) => void;
}

/** A WinRM option that cannot work (names the field). Exit code 2: it is bad input. */
export class WinrmConfigError extends KubemixError {
  constructor(host: string, message: string) {
    super(`${host}: winrm: ${message}`, { exitCode: 2 });
  }
}

/** Reads a SecretRef (env var or file); the value is returned, never logged. */
export async function resolveSecret(ref: string | SecretRef, field: string): Promise<string> {
  if (typeof ref === 'string') return ref;
  if ('env' in ref) {
    const value = process.env[ref.env];
    if (value === undefined) throw new SecretRefError(`${field}: environment variable ${ref.env} is not set`);
    return value;
  }
  try {
    return (await readFile(ref.file, 'utf8')).replace(/\r?\n$/, '');
  } catch (error) {
    throw new SecretRefError(
      `${field}: cannot read ${ref.file}: ${(error as NodeJS.ErrnoException).code ?? error}`,
    );
  }
}

/** Applies defaults, checks combinations and resolves the password. */
export async function resolveOptions(options: WinrmTransportOptions): Promise<ResolvedWinrmOptions> {
  const auth = options.auth ?? 'ntlm';
  const scheme =
    options.scheme ??
    (options.port === 5986 || (auth === 'basic' && options.port !== 5985) ? 'https' : 'http');
  const where = options.host;
  if (auth !== 'ntlm' && auth !== 'basic')
    throw new WinrmConfigError(where, `auth must be 'ntlm' or 'basic', got '${auth}'`);
  if (scheme !== 'http' && scheme !== 'https')
    throw new WinrmConfigError(where, `scheme must be 'http' or 'https', got '${scheme}'`);
  if (auth === 'basic' && scheme === 'http' && !options.allowBasicOverHttp) {
    throw new WinrmConfigError(
      where,
      "auth 'basic' over plain http would send the password in clear text; use scheme 'https' or auth 'ntlm' (or set allowBasicOverHttp: true)",
    );
  }
  const tls = options.tls ?? {};
  if (tls.fingerprint !== undefined && !/^([0-9a-fA-F]{2}:?){31}[0-9a-fA-F]{2}$/.test(tls.fingerprint)) {
    throw new WinrmConfigError(
      where,
      'tls.fingerprint must be a SHA-256 fingerprint (64 hex digits, colons allowed)',
    );
  }
  if (!options.user) throw new WinrmConfigError(where, 'user is required');
  const port = options.port ?? (scheme === 'https' ? 5986 : 5985);
  const path = options.path ?? '/wsman';
  const host = options.address.includes(':') ? `[${options.address}]` : options.address;
  const resolved: ResolvedWinrmOptions = {
    host: options.host,
    address: options.address,
    port,
    scheme,
    path,
    auth,
    user: options.user,
    password: await resolveSecret(options.password, `${where}: winrm password`),
    allowBasicOverHttp: options.allowBasicOverHttp ?? false,
    tls,
    operationTimeoutSec: options.operationTimeoutSec ?? 20,
    maxEnvelopeSize: options.maxEnvelopeSize ?? 153_600,
    sendEnvelopeSize: Math.max(options.sendEnvelopeSize ?? 512_000, options.maxEnvelopeSize ?? 153_600),
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    locale: options.locale ?? 'en-US',
    url: `${scheme}://${host}:${port}${path}`,
  };
  if (options.onRequest) resolved.onRequest = options.onRequest;
  return resolved;
}
