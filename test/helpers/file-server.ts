import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback HTTP server for files, as a user's download would see them; counts the bytes it sends. */
export interface FileServer {
  /** http://127.0.0.1:PORT */
  base: string;
  /** Bytes sent so far, all requests. */
  bytesSent(): number;
  close(): Promise<void>;
}

/** Serves `files` (URL path -> local file); anything else is a 404. */
export async function serveFiles(files: Record<string, string>): Promise<FileServer> {
  let sent = 0;
  const server: Server = createServer(async (req, res) => {
    const path = files[decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)];
    const info = path ? await stat(path).catch(() => undefined) : undefined;
    if (!path || !info) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-length': String(info.size) });
    const stream = createReadStream(path);
    stream.on('data', (chunk) => {
      sent += chunk.length;
    });
    stream.pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bytesSent: () => sent,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
