import { shQuote } from '../../quote/index.js';
import { chunked } from '../powershell/stdin-streams.js';
import { failureText, type RunRemote, type TransferMethod } from './transfer-method.js';

/**
 * Bytes per command. Uploads travel as the command's stdin (base64 in the long-lived shell),
 * downloads come back base64-encoded on stdout: each chunk is held in memory once or twice, so
 * it stays well below anything a shell or the frame reader would mind.
 */
const CHUNK = 512 * 1024;

/**
 * The last resort, Ansible's `piped` transfer (plugins/connection/ssh.py, `dd` on either side of
 * an exec): the file's bytes go through the shell the transport already holds, one chunk per
 * command, so a host needs neither an SFTP subsystem nor scp, only `cat`, `dd`, `wc` and
 * `base64`. Binary-safe: stdin is carried by the transport, stdout is base64.
 */
export function pipeMethod(run: RunRemote): TransferMethod {
  return {
    name: 'pipe',
    async upload(remotePath, source) {
      const q = shQuote(remotePath);
      let first = true;
      for await (const piece of chunked(source, CHUNK)) {
        const result = await run(first ? `umask 077 && cat > ${q}` : `cat >> ${q}`, piece);
        if (result.failed)
          throw new Error(`writing ${remotePath} through the shell failed: ${failureText(result)}`);
        first = false;
      }
      if (first) {
        const result = await run(`umask 077 && : > ${q}`);
        if (result.failed)
          throw new Error(`creating ${remotePath} through the shell failed: ${failureText(result)}`);
      }
    },
    async *download(remotePath) {
      const q = shQuote(remotePath);
      const size = await run(`wc -c < ${q}`);
      const total = Number.parseInt(size.stdout.trim(), 10);
      if (size.failed || !Number.isFinite(total))
        throw new Error(`cannot read ${remotePath} through the shell: ${failureText(size)}`);
      for (let block = 0; block * CHUNK < total; block++) {
        const read = await run(`dd if=${q} bs=${CHUNK} skip=${block} count=1 2>/dev/null | base64`);
        const bytes = Buffer.from(read.stdout, 'base64');
        const expected = Math.min(CHUNK, total - block * CHUNK);
        if (read.failed || bytes.length !== expected)
          throw new Error(
            `reading ${remotePath} through the shell stopped at byte ${block * CHUNK} of ${total}${read.failed ? `: ${failureText(read)}` : ''}`,
          );
        yield bytes;
      }
    },
  };
}
