import { createServer, type Server } from 'node:net';

/**
 * Opens a TCP port on 127.0.0.1 that greets each client with `banner` and closes.
 * Port probes (bash's /dev/tcp, nc -z) connect and reset before reading: the reset is expected,
 * so each socket has an error handler — without one Node throws ECONNRESET out of the test file
 * (vitest reports it as an unhandled error and the run fails, as CI did in stop 29).
 */
export async function openPort(
  banner = 'kubemix test server\n',
): Promise<{ port: number; close: () => Promise<void> }> {
  const server: Server = createServer((socket) => {
    socket.on('error', () => undefined);
    socket.end(banner);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return { port: address.port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
