import { KubemixError } from '../../errors/index.js';

/** The parts of a SOAP fault that WS-Management servers fill in (MS-WSMV 2.2.4.13, SOAP 1.2 5.4). */
export interface WsmanFaultInfo {
  /** SOAP fault code, e.g. `s:Receiver`. */
  code: string;
  /** WS-Management subcode, e.g. `w:TimedOut`, `w:AccessDenied`. */
  subcode?: string;
  /** Numeric WSManFault code, e.g. 2150858793 for an operation timeout. */
  wsmanCode?: number;
  /** The reason text or the WSManFault message. */
  message: string;
}

/** WSManFault code of `w:TimedOut`: nothing to report before OperationTimeout; re-issue Receive. */
export const WSMAN_TIMED_OUT = 2150858793;
/** WSManFault code when a shell id is unknown to the server (the shell vanished). */
export const WSMAN_SHELL_NOT_FOUND = 2150858843;

/** A SOAP fault returned by a WinRM server, with its codes parsed out. */
export class WsmanFaultError extends KubemixError {
  readonly fault: WsmanFaultInfo;
  /** WS-Management action of the request that failed (Create, Command, Receive...). */
  readonly action: string;
  constructor(action: string, fault: WsmanFaultInfo) {
    const codes = [fault.subcode, fault.wsmanCode].filter((c) => c !== undefined).join(' ');
    super(`WinRM ${action} failed${codes ? ` (${codes})` : ''}: ${fault.message}`);
    this.fault = fault;
    this.action = action;
  }

  /** True for the Receive long-poll timeout, which is not an error for the caller. */
  get timedOut(): boolean {
    return this.fault.wsmanCode === WSMAN_TIMED_OUT || /TimedOut$/.test(this.fault.subcode ?? '');
  }
}

/** A response that breaks the protocol: unparseable XML, missing fields, RelatesTo mismatch. */
export class WinrmProtocolError extends KubemixError {}
