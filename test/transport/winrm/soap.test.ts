import { describe, expect, it } from 'vitest';
import { WsmanFaultError } from '../../../src/transport/winrm/errors.js';
import {
  Action,
  buildFault,
  buildRequest,
  buildResponse,
  commandBody,
  createShellBody,
  newMessageId,
  parseDurationSec,
  parseEnvelope,
  receiveBody,
  SIGNAL_TERMINATE,
  sendBody,
  signalBody,
  textOf,
} from '../../../src/transport/winrm/soap.js';

const header = (action: string, extra: Record<string, unknown> = {}) => ({
  to: 'http://win1:5985/wsman',
  action,
  messageId: 'uuid:11111111-2222-3333-4444-555555555555',
  maxEnvelopeSize: 153600,
  operationTimeoutSec: 20,
  ...extra,
});

describe('request envelopes', () => {
  it('Create carries the WS-Management header fields and the shell options', () => {
    const xml = buildRequest(
      header(Action.Create, { options: { WINRS_NOPROFILE: 'TRUE', WINRS_CODEPAGE: '65001' } }),
      createShellBody(),
    );
    const parsed = parseEnvelope(xml);
    expect(parsed.action).toBe(Action.Create);
    expect(parsed.messageId).toBe('uuid:11111111-2222-3333-4444-555555555555');
    expect(parsed.to).toBe('http://win1:5985/wsman');
    expect(parsed.resourceUri).toBe('http://schemas.microsoft.com/wbem/wsman/1/windows/shell/cmd');
    expect(parsed.maxEnvelopeSize).toBe(153600);
    expect(parsed.operationTimeoutSec).toBe(20);
    expect(parsed.options).toEqual({ WINRS_NOPROFILE: 'TRUE', WINRS_CODEPAGE: '65001' });
    expect(textOf(parsed.body.Shell.InputStreams)).toBe('stdin');
    expect(textOf(parsed.body.Shell.OutputStreams)).toBe('stdout stderr');
    expect(xml).toContain(
      '<a:ReplyTo><a:Address s:mustUnderstand="true">http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous</a:Address></a:ReplyTo>',
    );
  });

  it('Command escapes the command line and keeps arguments apart', () => {
    const xml = buildRequest(
      header(Action.Command, { shellId: 'S-1' }),
      commandBody('cmd /c echo <a & b>', ['"x"', 'y']),
    );
    const parsed = parseEnvelope(xml);
    expect(parsed.shellId).toBe('S-1');
    expect(textOf(parsed.body.CommandLine.Command)).toBe('cmd /c echo <a & b>');
    expect(parsed.body.CommandLine.Arguments.map(textOf)).toEqual(['"x"', 'y']);
  });

  it('Send, Receive and Signal bodies', () => {
    const data = Buffer.from('Grüße\n'.repeat(200));
    const send = parseEnvelope(
      buildRequest(header(Action.Send, { shellId: 'S' }), sendBody('C-1', data, true)),
    );
    const stream = send.body.Send.Stream[0];
    expect(stream['@_Name']).toBe('stdin');
    expect(stream['@_CommandId']).toBe('C-1');
    expect(stream['@_End']).toBe('true');
    // Large streams take the fast path around the XML parser and must come back intact.
    expect(Buffer.from(textOf(stream)!, 'base64').equals(data)).toBe(true);
    const receive = parseEnvelope(buildRequest(header(Action.Receive, { shellId: 'S' }), receiveBody('C-1')));
    expect(receive.body.Receive.DesiredStream['@_CommandId']).toBe('C-1');
    const signal = parseEnvelope(
      buildRequest(header(Action.Signal, { shellId: 'S' }), signalBody('C-1', SIGNAL_TERMINATE)),
    );
    expect(textOf(signal.body.Signal.Code)).toBe(SIGNAL_TERMINATE);
  });

  it('MessageIDs are fresh uuids', () => {
    const a = newMessageId();
    expect(a).toMatch(/^uuid:[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/);
    expect(newMessageId()).not.toBe(a);
  });

  it('parses ISO 8601 durations', () => {
    expect(parseDurationSec('PT20S')).toBe(20);
    expect(parseDurationSec('PT1.5S')).toBe(1.5);
    expect(parseDurationSec('PT1M30S')).toBe(90);
    expect(parseDurationSec('bogus')).toBeUndefined();
  });
});

describe('responses', () => {
  it('a Receive response with several streams and the Done state', () => {
    const xml = buildResponse({
      action: `${Action.Receive}Response`,
      relatesTo: 'uuid:X',
      body:
        '<rsp:ReceiveResponse><rsp:Stream Name="stdout" CommandId="C">aGk=</rsp:Stream><rsp:Stream Name="stderr" CommandId="C">ZXJy</rsp:Stream>' +
        '<rsp:Stream Name="stdout" CommandId="C" End="true"></rsp:Stream>' +
        '<rsp:CommandState CommandId="C" State="http://schemas.microsoft.com/wbem/wsman/1/windows/shell/CommandState/Done"><rsp:ExitCode>3</rsp:ExitCode></rsp:CommandState></rsp:ReceiveResponse>',
    });
    const parsed = parseEnvelope(xml);
    expect(parsed.relatesTo).toBe('uuid:X');
    const streams = parsed.body.ReceiveResponse.Stream;
    expect(streams.map((s: Record<string, string>) => [s['@_Name'], textOf(s)])).toEqual([
      ['stdout', 'aGk='],
      ['stderr', 'ZXJy'],
      ['stdout', ''],
    ]);
    expect(textOf(parsed.body.ReceiveResponse.CommandState.ExitCode)).toBe('3');
  });

  it('parses a Windows-style fault into code, subcode, WSMan code and message', () => {
    const xml = buildFault({
      relatesTo: 'uuid:Y',
      code: 'Receiver',
      subcode: 'w:TimedOut',
      wsmanCode: 2150858793,
      message:
        'The WS-Management service cannot complete the operation within the time specified in OperationTimeout.',
    });
    const parsed = parseEnvelope(xml);
    expect(parsed.fault).toEqual({
      code: 's:Receiver',
      subcode: 'w:TimedOut',
      wsmanCode: 2150858793,
      message:
        'The WS-Management service cannot complete the operation within the time specified in OperationTimeout.',
    });
    const error = new WsmanFaultError('Receive', parsed.fault!);
    expect(error.timedOut).toBe(true);
    expect(error.message).toBe(
      'WinRM Receive failed (w:TimedOut 2150858793): The WS-Management service cannot complete the operation within the time specified in OperationTimeout.',
    );
  });

  it('parses a fault that only has a reason text', () => {
    const xml =
      '<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope"><s:Body><s:Fault><s:Code><s:Value>s:Sender</s:Value></s:Code>' +
      '<s:Reason><s:Text xml:lang="en-US">Access is denied.</s:Text></s:Reason></s:Fault></s:Body></s:Envelope>';
    const parsed = parseEnvelope(xml);
    expect(parsed.fault).toEqual({ code: 's:Sender', message: 'Access is denied.' });
    expect(new WsmanFaultError('Create', parsed.fault!).timedOut).toBe(false);
  });

  it('rejects what is not a SOAP envelope', () => {
    expect(() => parseEnvelope('<html><body>IIS</body></html>')).toThrow(/not a SOAP envelope/);
  });
});
