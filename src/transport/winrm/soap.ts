import { randomUUID } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import { xmlEscape } from '../../quote/index.js';
import { WinrmProtocolError, type WsmanFaultInfo } from './errors.js';

/** XML namespaces of WS-Management and the Windows remote shell (MS-WSMV 2.2.1). */
export const NS = {
  s: 'http://www.w3.org/2003/05/soap-envelope',
  a: 'http://schemas.xmlsoap.org/ws/2004/08/addressing',
  w: 'http://schemas.dmtf.org/wbem/wsman/1/wsman.xsd',
  p: 'http://schemas.microsoft.com/wbem/wsman/1/wsman.xsd',
  rsp: 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell',
  x: 'http://schemas.xmlsoap.org/ws/2004/09/transfer',
  f: 'http://schemas.microsoft.com/wbem/wsman/1/wsmanfault',
} as const;

const SHELL = 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell';
const TRANSFER = 'http://schemas.xmlsoap.org/ws/2004/09/transfer';

/** WS-Management actions used by the remote shell. */
export const Action = {
  Create: `${TRANSFER}/Create`,
  Delete: `${TRANSFER}/Delete`,
  Command: `${SHELL}/Command`,
  Send: `${SHELL}/Send`,
  Receive: `${SHELL}/Receive`,
  Signal: `${SHELL}/Signal`,
} as const;

export const RESOURCE_URI_CMD = `${SHELL}/cmd`;
export const SIGNAL_TERMINATE = `${SHELL}/signal/terminate`;
export const SIGNAL_CTRL_C = `${SHELL}/signal/ctrl_c`;
export const COMMAND_STATE_DONE = `${SHELL}/CommandState/Done`;
export const COMMAND_STATE_RUNNING = `${SHELL}/CommandState/Running`;
export const ANONYMOUS = 'http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous';
export const FAULT_ACTION = 'http://schemas.dmtf.org/wbem/wsman/1/wsman/fault';

/** Short name of an action URI (`Receive`, `CreateResponse`...), for messages. */
export const actionName = (uri: string): string => uri.slice(uri.lastIndexOf('/') + 1);

/** A fresh `uuid:` MessageID. */
export const newMessageId = (): string => `uuid:${randomUUID().toUpperCase()}`;

/** Header fields of a request envelope. */
export interface RequestHeader {
  to: string;
  action: string;
  messageId: string;
  maxEnvelopeSize: number;
  operationTimeoutSec: number;
  resourceUri?: string;
  shellId?: string;
  /** w:OptionSet entries (WINRS_NOPROFILE...). */
  options?: Record<string, string>;
  locale?: string;
}

/** Builds a SOAP 1.2 request envelope around `body` (already XML). */
export function buildRequest(header: RequestHeader, body: string): string {
  const locale = header.locale ?? 'en-US';
  const selector = header.shellId
    ? `<w:SelectorSet><w:Selector Name="ShellId">${xmlEscape(header.shellId)}</w:Selector></w:SelectorSet>`
    : '';
  const options = header.options
    ? `<w:OptionSet>${Object.entries(header.options)
        .map(([k, v]) => `<w:Option Name="${xmlEscape(k)}">${xmlEscape(v)}</w:Option>`)
        .join('')}</w:OptionSet>`
    : '';
  return (
    `<?xml version="1.0" encoding="utf-8"?>` +
    `<s:Envelope xmlns:s="${NS.s}" xmlns:a="${NS.a}" xmlns:w="${NS.w}" xmlns:p="${NS.p}" xmlns:rsp="${NS.rsp}">` +
    '<s:Header>' +
    `<a:To>${xmlEscape(header.to)}</a:To>` +
    `<a:ReplyTo><a:Address s:mustUnderstand="true">${ANONYMOUS}</a:Address></a:ReplyTo>` +
    `<w:MaxEnvelopeSize s:mustUnderstand="true">${header.maxEnvelopeSize}</w:MaxEnvelopeSize>` +
    `<a:MessageID>${header.messageId}</a:MessageID>` +
    `<w:Locale xml:lang="${locale}" s:mustUnderstand="false"/>` +
    `<p:DataLocale xml:lang="${locale}" s:mustUnderstand="false"/>` +
    `<w:OperationTimeout>PT${header.operationTimeoutSec}S</w:OperationTimeout>` +
    `<w:ResourceURI s:mustUnderstand="true">${header.resourceUri ?? RESOURCE_URI_CMD}</w:ResourceURI>` +
    `<a:Action s:mustUnderstand="true">${header.action}</a:Action>` +
    selector +
    options +
    '</s:Header>' +
    `<s:Body>${body}</s:Body>` +
    '</s:Envelope>'
  );
}

/** Body of a shell Create: stdin in, stdout and stderr out. */
export function createShellBody(
  options: { workingDirectory?: string; env?: Record<string, string> } = {},
): string {
  const env = options.env
    ? `<rsp:Environment>${Object.entries(options.env)
        .map(([k, v]) => `<rsp:Variable Name="${xmlEscape(k)}">${xmlEscape(v)}</rsp:Variable>`)
        .join('')}</rsp:Environment>`
    : '';
  const cwd = options.workingDirectory
    ? `<rsp:WorkingDirectory>${xmlEscape(options.workingDirectory)}</rsp:WorkingDirectory>`
    : '';
  return `<rsp:Shell><rsp:InputStreams>stdin</rsp:InputStreams><rsp:OutputStreams>stdout stderr</rsp:OutputStreams>${cwd}${env}</rsp:Shell>`;
}

/** Body of a Command: the program and its arguments. */
export function commandBody(command: string, args: string[] = []): string {
  const argXml = args.map((a) => `<rsp:Arguments>${xmlEscape(a)}</rsp:Arguments>`).join('');
  return `<rsp:CommandLine><rsp:Command>${xmlEscape(command)}</rsp:Command>${argXml}</rsp:CommandLine>`;
}

/** Body of a Send: one chunk of stdin, base64, optionally the last. */
export function sendBody(commandId: string, data: Buffer, end: boolean): string {
  return `<rsp:Send><rsp:Stream Name="stdin" CommandId="${xmlEscape(commandId)}"${end ? ' End="true"' : ''}>${data.toString('base64')}</rsp:Stream></rsp:Send>`;
}

/** Body of a Receive for one command's stdout and stderr. */
export function receiveBody(commandId: string): string {
  return `<rsp:Receive><rsp:DesiredStream CommandId="${xmlEscape(commandId)}">stdout stderr</rsp:DesiredStream></rsp:Receive>`;
}

/** Body of a Signal (terminate or ctrl_c). */
export function signalBody(commandId: string, code: string): string {
  return `<rsp:Signal CommandId="${xmlEscape(commandId)}"><rsp:Code>${code}</rsp:Code></rsp:Signal>`;
}

/** A parsed XML node as fast-xml-parser returns it (namespace prefixes removed). */
// biome-ignore lint/suspicious/noExplicitAny: parsed XML is dynamically shaped.
export type XmlNode = any;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  textNodeName: '#text',
  isArray: (name) => ['Stream', 'Selector', 'Option', 'Arguments', 'Variable'].includes(name),
  processEntities: true,
  htmlEntities: false,
});

/** The text of an element, whether it parsed as a string or as an object with `#text`. */
export function textOf(node: XmlNode): string | undefined {
  if (node === undefined || node === null) return undefined;
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  if (typeof node === 'object' && '#text' in node) return String(node['#text']);
  if (typeof node === 'object') return '';
  return undefined;
}

/** A parsed SOAP envelope: the header fields WS-Management uses and the raw body. */
export interface ParsedEnvelope {
  action?: string;
  messageId?: string;
  relatesTo?: string;
  to?: string;
  resourceUri?: string;
  shellId?: string;
  operationTimeoutSec?: number;
  maxEnvelopeSize?: number;
  options: Record<string, string>;
  body: XmlNode;
  fault?: WsmanFaultInfo;
}

/** Reads an ISO 8601 duration of the form PTnS / PTn.nS / PTnMnS into seconds. */
export function parseDurationSec(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const m = /^P(?:T(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?)$/.exec(text.trim());
  if (!m) return undefined;
  return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
}

/** Parses a SOAP envelope (request or response). Throws WinrmProtocolError when it is not one. */
export function parseEnvelope(xml: string): ParsedEnvelope {
  let doc: XmlNode;
  // Stream elements carry up to hundreds of KB of base64; the generic XML parser is slow on big
  // text nodes, so they are lifted out before parsing and put back afterwards.
  const { light, streams } = liftStreams(xml);
  try {
    doc = parser.parse(light);
  } catch (error) {
    throw new WinrmProtocolError(`response is not XML: ${(error as Error).message}`, { cause: error });
  }
  const envelope = doc?.Envelope;
  if (!envelope || typeof envelope !== 'object')
    throw new WinrmProtocolError('response is not a SOAP envelope');
  const header = envelope.Header ?? {};
  const body = envelope.Body ?? {};
  const options: Record<string, string> = {};
  for (const o of header.OptionSet?.Option ?? []) {
    const name = o?.['@_Name'];
    if (typeof name === 'string') options[name] = textOf(o) ?? '';
  }
  const shellSelector = (header.SelectorSet?.Selector ?? []).find(
    (s: XmlNode) => s?.['@_Name'] === 'ShellId',
  );
  const result: ParsedEnvelope = { options, body };
  const set = <K extends keyof ParsedEnvelope>(key: K, value: ParsedEnvelope[K] | undefined) => {
    if (value !== undefined) result[key] = value;
  };
  set('action', textOf(header.Action)?.trim());
  set('messageId', textOf(header.MessageID)?.trim());
  set('relatesTo', textOf(header.RelatesTo)?.trim());
  set('to', textOf(header.To)?.trim());
  set('resourceUri', textOf(header.ResourceURI)?.trim());
  set('shellId', textOf(shellSelector)?.trim());
  set('operationTimeoutSec', parseDurationSec(textOf(header.OperationTimeout)));
  const maxEnvelope = Number(textOf(header.MaxEnvelopeSize));
  if (Number.isFinite(maxEnvelope) && maxEnvelope > 0) result.maxEnvelopeSize = maxEnvelope;
  if (body.Fault) result.fault = parseFault(body.Fault);
  if (streams.length) {
    for (const holder of [body.Send, body.ReceiveResponse]) {
      for (const stream of (holder?.Stream ?? []) as XmlNode[]) {
        const text = textOf(stream);
        if (text?.startsWith(STREAM_PLACEHOLDER))
          stream['#text'] = streams[Number(text.slice(STREAM_PLACEHOLDER.length))];
      }
    }
  }
  return result;
}

const STREAM_PLACEHOLDER = 'kubemix-stream-';

/** Replaces the content of large `Stream` elements with placeholders (indexOf scan, no regex). */
function liftStreams(xml: string): { light: string; streams: string[] } {
  const streams: string[] = [];
  const parts: string[] = [];
  let at = 0;
  let cursor = 0;
  for (;;) {
    const tag = xml.indexOf('Stream', cursor);
    if (tag < 0) break;
    cursor = tag + 6;
    // Only an opening tag `<Stream ...>` or `<prefix:Stream ...>` followed by text counts.
    const lt = xml.lastIndexOf('<', tag);
    if (lt < 0 || xml[lt + 1] === '/' || /[\s>]/.test(xml.slice(lt + 1, tag))) continue;
    const next = xml[tag + 6];
    if (next !== ' ' && next !== '>') continue;
    const gt = xml.indexOf('>', tag);
    if (gt < 0 || xml[gt - 1] === '/') continue;
    const end = xml.indexOf('<', gt);
    if (end < 0) break;
    if (end - gt - 1 >= 512) {
      parts.push(xml.slice(at, gt + 1), `${STREAM_PLACEHOLDER}${streams.length}`);
      streams.push(xml.slice(gt + 1, end));
      at = end;
    }
    cursor = end;
  }
  if (!streams.length) return { light: xml, streams };
  parts.push(xml.slice(at));
  return { light: parts.join(''), streams };
}
/** Extracts code, subcode, WSManFault code and message from a parsed s:Fault. */
export function parseFault(fault: XmlNode): WsmanFaultInfo {
  const code = textOf(fault?.Code?.Value)?.trim() ?? 'unknown';
  const subcode = textOf(fault?.Code?.Subcode?.Value)?.trim();
  const detail = fault?.Detail?.WSManFault;
  const wsmanCodeText = detail?.['@_Code'];
  const detailMessage = detail?.Message;
  const reasonText = fault?.Reason?.Text;
  const reason = Array.isArray(reasonText) ? reasonText[0] : reasonText;
  const message = (textOf(detailMessage)?.trim() || textOf(reason)?.trim() || 'no message in fault').replace(
    /\s+/g,
    ' ',
  );
  const info: WsmanFaultInfo = { code, message };
  if (subcode) info.subcode = subcode;
  if (wsmanCodeText !== undefined && /^\d+$/.test(String(wsmanCodeText)))
    info.wsmanCode = Number(wsmanCodeText);
  return info;
}

/** Builds a SOAP fault response (used by test servers). */
export function buildFault(options: {
  relatesTo?: string;
  code: 'Sender' | 'Receiver';
  subcode: string;
  wsmanCode: number;
  message: string;
}): string {
  const relates = options.relatesTo ? `<a:RelatesTo>${xmlEscape(options.relatesTo)}</a:RelatesTo>` : '';
  return (
    `<?xml version="1.0" encoding="utf-8"?>` +
    `<s:Envelope xml:lang="en-US" xmlns:s="${NS.s}" xmlns:a="${NS.a}" xmlns:x="${NS.x}" xmlns:e="http://schemas.xmlsoap.org/ws/2004/08/eventing" xmlns:n="http://schemas.xmlsoap.org/ws/2004/09/enumeration" xmlns:w="${NS.w}" xmlns:p="${NS.p}">` +
    `<s:Header><a:Action>${FAULT_ACTION}</a:Action><a:MessageID>${newMessageId()}</a:MessageID>` +
    `<a:To>${ANONYMOUS}</a:To>${relates}</s:Header>` +
    `<s:Body><s:Fault><s:Code><s:Value>s:${options.code}</s:Value><s:Subcode><s:Value>${options.subcode}</s:Value></s:Subcode></s:Code>` +
    `<s:Reason><s:Text xml:lang="en-US">${xmlEscape(options.message)}</s:Text></s:Reason>` +
    `<s:Detail><f:WSManFault xmlns:f="${NS.f}" Code="${options.wsmanCode}" Machine="localhost"><f:Message>${xmlEscape(options.message)}</f:Message></f:WSManFault></s:Detail>` +
    '</s:Fault></s:Body></s:Envelope>'
  );
}

/** Builds a successful response envelope (used by test servers). */
export function buildResponse(options: {
  action: string;
  relatesTo?: string;
  body: string;
  shellId?: string;
}): string {
  const relates = options.relatesTo ? `<a:RelatesTo>${xmlEscape(options.relatesTo)}</a:RelatesTo>` : '';
  return (
    `<?xml version="1.0" encoding="utf-8"?>` +
    `<s:Envelope xml:lang="en-US" xmlns:s="${NS.s}" xmlns:a="${NS.a}" xmlns:x="${NS.x}" xmlns:w="${NS.w}" xmlns:rsp="${NS.rsp}" xmlns:p="${NS.p}">` +
    `<s:Header><a:Action>${options.action}</a:Action><a:MessageID>${newMessageId()}</a:MessageID>` +
    `<a:To>${ANONYMOUS}</a:To>${relates}</s:Header>` +
    `<s:Body>${options.body}</s:Body></s:Envelope>`
  );
}
