import { execFile } from 'node:child_process';
import { mkdir, symlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { playbooksDir } from '../../src/playbook/index.js';
import { testTempDir } from '../helpers/temp.js';

// verify-lib.sh's kmx_curl on a node WITHOUT curl (an offline cluster on a minimal image: the real
// cluster's Debian 13 guests failed every node-side check with "curl: not found"): the real dash
// and bash of this machine, a PATH that holds no curl, and a real HTTP server on loopback standing
// in for a netexec pod. The lab's nodes have curl (its stand-in answers for the simulated pods), so
// only this test and the real-cluster e2e take the /dev/tcp path.

const run = promisify(execFile);
const lib = join(playbooksDir(), 'files', 'linux', 'verify-lib.sh');
let server: Server;
let port: number;
/** The request lines the server got. */
const requests: string[] = [];
/** A PATH of the tools kmx_curl's fallback uses, and no curl. */
let noCurlPath: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url} HTTP/${req.httpVersion} host=${req.headers.host}`);
    if (req.url === '/hostname') res.end('linux-netexec-abc12');
    else if (req.url?.startsWith('/dial?')) res.end('{"responses":["linux-netexec-xyz"]}');
    // /silent never answers.
    else if (req.url === '/silent') return;
    else {
      res.statusCode = 404;
      res.end('404 page not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  noCurlPath = join(await testTempDir('verify-lib-get'), 'bin');
  await mkdir(noCurlPath);
  for (const tool of ['sh', 'bash', 'cat', 'timeout'])
    await symlink((await run('sh', ['-c', `command -v ${tool}`])).stdout.trim(), join(noCurlPath, tool));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** kmx_curl of `url` in dash with verify-lib.sh sourced and no curl on PATH: its three results. */
async function kmxCurl(url: string, seconds = 5): Promise<{ rc: number; out: string; cmd: string }> {
  const script = `. "$1"; KMX_T=${seconds}; kmx_curl "$2"; printf '%s\\n%s\\n%s' "$KMX_RC" "$KMX_CMD" "$KMX_OUT"`;
  const { stdout } = await run('/bin/sh', ['-c', script, 'sh', lib, url], {
    env: { PATH: noCurlPath },
  });
  const [rc, cmd, ...out] = stdout.split('\n');
  return { rc: Number(rc), cmd: cmd ?? '', out: out.join('\n') };
}

describe('kmx_curl on a node without curl (HTTP/1.0 over bash /dev/tcp)', () => {
  it('gets the body of a netexec answer, with the host and port asked for', async () => {
    const got = await kmxCurl(`http://127.0.0.1:${port}/hostname`);
    expect(got).toEqual({
      rc: 0,
      out: 'linux-netexec-abc12',
      cmd: `GET 'http://127.0.0.1:${port}/hostname' (HTTP/1.0 over bash's /dev/tcp, within 5s: this node has no curl)`,
    });
    expect(requests).toContain(`GET /hostname HTTP/1.0 host=127.0.0.1:${port}`);
  });

  it("keeps /dial's query string whole", async () => {
    const url = `http://127.0.0.1:${port}/dial?request=hostname&protocol=http&host=10.244.1.3&port=8080&tries=1`;
    expect(await kmxCurl(url)).toMatchObject({ rc: 0, out: '{"responses":["linux-netexec-xyz"]}' });
    expect(requests).toContain(
      `GET /dial?request=hostname&protocol=http&host=10.244.1.3&port=8080&tries=1 HTTP/1.0 host=127.0.0.1:${port}`,
    );
  });

  it('gives the body of an error status with exit 0, as curl without -f does', async () => {
    expect(await kmxCurl(`http://127.0.0.1:${port}/nothing`)).toMatchObject({
      rc: 0,
      out: '404 page not found',
    });
  });

  it('fails with the connection error when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const freePort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const got = await kmxCurl(`http://127.0.0.1:${freePort}/hostname`);
    expect(got.rc).not.toBe(0);
    expect(got.out).toContain('Connection refused');
  });

  it('gives up at KMX_T seconds when the server never answers', async () => {
    expect(await kmxCurl(`http://127.0.0.1:${port}/silent`, 1)).toMatchObject({
      rc: 124,
      out: 'no answer within 1s',
    });
  });
});
