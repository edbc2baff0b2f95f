export { WinrmChannel } from './channel.js';
export { decryptBody, ENCRYPTED_CONTENT_TYPE, encryptBody, isEncryptedContentType } from './encryption.js';
export type { WsmanFaultInfo } from './errors.js';
export { WinrmProtocolError, WSMAN_SHELL_NOT_FOUND, WSMAN_TIMED_OUT, WsmanFaultError } from './errors.js';
export type { WinrmTlsOptions, WinrmTransportOptions } from './options.js';
export { resolveOptions, resolveSecret, WinrmConfigError } from './options.js';
export { WinrmShell } from './shell.js';
export type { RawExecRequest } from './winrm-transport.js';
export { WinrmTransport } from './winrm-transport.js';
