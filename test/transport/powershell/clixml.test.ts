import { describe, expect, it } from 'vitest';
import {
  decodeClixml,
  encodeClixmlErrors,
  isClixml,
  unescapeClixmlText,
} from '../../../src/transport/powershell/clixml.js';

describe('CLIXML', () => {
  // The shape powershell.exe writes to stderr for `Write-Error` under -EncodedCommand.
  const sample =
    '#< CLIXML\r\n<Objs Version="1.1.0.1" xmlns="http://schemas.microsoft.com/powershell/2004/04">' +
    '<Obj S="progress" RefId="0"><TN RefId="0"><T>System.Management.Automation.PSCustomObject</T></TN><MS><I64 N="SourceId">1</I64></MS></Obj>' +
    '<S S="Error">Cannot find path _x0027_C:\\nope_x0027_ because it does not exist._x000D__x000A_</S>' +
    '<S S="Error">second &lt;line&gt; &amp; more_x000D__x000A_</S>' +
    '<S S="Warning">ignored warning_x000D__x000A_</S></Objs>';

  it('decodes error records to plain text and drops progress records', () => {
    expect(isClixml(sample)).toBe(true);
    expect(decodeClixml(sample)).toBe(
      "Cannot find path 'C:\\nope' because it does not exist.\nsecond <line> & more\n",
    );
  });

  it('can include other streams on request', () => {
    expect(decodeClixml(sample, ['Warning'])).toBe('ignored warning\n');
  });

  it('leaves plain text alone', () => {
    expect(decodeClixml('plain error\r\n')).toBe('plain error\r\n');
  });

  it('joins escaped surrogate pairs back into one character', () => {
    expect(unescapeClixmlText('rocket _xD83D__xDE80_')).toBe('rocket 🚀');
  });

  it('round-trips what the test server encodes', () => {
    const encoded = encodeClixmlErrors(['Grüße, 東京 <x> & _y_', 'two']);
    expect(decodeClixml(encoded)).toBe('Grüße, 東京 <x> & _y_\ntwo\n');
  });
});
