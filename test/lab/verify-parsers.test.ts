import { describe, expect, it } from 'vitest';
import { curlOutput, parseCurlArgs } from '../../fixtures/lab/standins/tools/http.js';
import { parseWebRequest } from '../../fixtures/lab/standins/tools/kubectl-exec.js';
import { curlFailure, powershellFailure } from '../../fixtures/lab/state/reach-text.js';

describe('kubectl exec: the PowerShell the lab understands', () => {
  it('reads Invoke-WebRequest with a property, a pipeline, quotes and aliases', () => {
    expect(parseWebRequest('(Invoke-WebRequest -UseBasicParsing -Uri http://10.244.1.2).StatusCode')).toEqual(
      {
        expression: 'Invoke-WebRequest -UseBasicParsing -Uri http://10.244.1.2',
        url: 'http://10.244.1.2',
        property: 'StatusCode',
      },
    );
    expect(
      parseWebRequest(
        "iwr -Uri 'http://a b' -TimeoutSec 5 -UseBasicParsing | Select-Object -ExpandProperty Content",
      ),
    ).toMatchObject({ url: 'http://a b', timeoutSec: 5, property: 'Content' });
    expect(parseWebRequest("Invoke-WebRequest -Uri 'https://x/?q=it''s;Get-Process&a=1'")).toMatchObject({
      url: "https://x/?q=it's;Get-Process&a=1",
    });
    expect(
      parseWebRequest('Invoke-WebRequest "https://www.microsoft.com" -Method GET -ErrorAction Stop;'),
    ).toMatchObject({
      url: 'https://www.microsoft.com',
      property: undefined,
    });
  });

  it('refuses everything else', () => {
    for (const script of [
      'Get-Process',
      'Invoke-WebRequest -UseBasicParsing',
      'Invoke-WebRequest -Uri http://x -Method POST',
      'Invoke-WebRequest -Uri http://x -OutFile c:\\x',
      'Invoke-WebRequest http://x http://y',
      'Invoke-WebRequest -Uri http://x -TimeoutSec soon',
      // Unquoted, these are PowerShell syntax: an unterminated string, a second statement.
      "Invoke-WebRequest -Uri https://x/?q=it's",
      'Invoke-WebRequest -Uri https://x/;Get-Process',
      'Invoke-WebRequest -Uri https://x/?a=1&b=2',
    ])
      expect(parseWebRequest(script), script).toBeUndefined();
  });
});

describe('curl stand-in: options and output', () => {
  it('reads clustered short flags, values glued or apart, and long options with =', () => {
    expect(parseCurlArgs(['-fsSLo/tmp/x', '--max-time=2.5', '--connect-timeout', '3', 'http://h'])).toEqual({
      url: 'http://h',
      output: '/tmp/x',
      head: false,
      fail: true,
      silent: true,
      showError: true,
      maxTimeMs: 2500,
      connectTimeoutMs: 3000,
    });
    expect(parseCurlArgs(['-sw', '%{http_code}', '-m', '1', 'x'])).toMatchObject({
      writeOut: '%{http_code}',
      maxTimeMs: 1000,
    });
    expect(() => parseCurlArgs(['-s'])).toThrow('curl: no URL specified');
    expect(() => parseCurlArgs(['--frobnicate', 'x'])).toThrow('curl: option --frobnicate: is unknown');
    expect(() => parseCurlArgs(['--max-time', 'x', 'u'])).toThrow('expected a proper numerical parameter');
  });

  it('prints the body, the write-out, and errors unless silenced without -S', () => {
    const ok = { ok: true as const, status: 200, body: 'hello', servedBy: 'default/p' };
    expect(curlOutput(parseCurlArgs(['-s', '-w', '%{http_code}\\n', 'u']), ok)).toEqual({
      stdout: 'hello200\n',
      stderr: '',
      code: 0,
    });
    expect(curlOutput(parseCurlArgs(['-o', 'f', 'u']), ok)).toMatchObject({ stdout: '', body: 'hello' });
    const failure = {
      ok: false as const,
      kind: 'timeout' as const,
      reason: 'r',
      ...curlFailure('timeout', '10.0.0.1', 80, { maxTimeMs: 2000 }),
    };
    expect(curlOutput(parseCurlArgs(['-s', 'u']), failure)).toEqual({ stdout: '', stderr: '', code: 28 });
    expect(curlOutput(parseCurlArgs(['-sS', '-w', '%{http_code}', 'u']), failure)).toEqual({
      stdout: '000',
      stderr: 'curl: (28) Connection timed out after 2000 milliseconds\n',
      code: 28,
    });
  });

  it('words failures like curl 7.88 and Windows PowerShell 5.1', () => {
    expect(curlFailure('timeout', 'h', 80)).toEqual({
      error: "curl: (7) Failed to connect to h port 80 after 130000 ms: Couldn't connect to server",
      exitCode: 7,
    });
    expect(curlFailure('malformed', 'h', 80).exitCode).toBe(3);
    expect(powershellFailure('timeout', 'h', { maxTimeMs: 5000 })).toBe('The operation has timed out.');
    expect(powershellFailure('timeout', 'h')).toBe('Unable to connect to the remote server');
    expect(powershellFailure('resolve', 'h.example')).toBe(
      "The remote name could not be resolved: 'h.example'",
    );
  });
});
