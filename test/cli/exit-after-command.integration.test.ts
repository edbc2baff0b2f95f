import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { kubemixCli } from '../../scripts/lab/kubemix-cli.js';
import { testTempDir } from '../helpers/temp.js';

// The CLI ends once its command returns, even when something still holds the event loop: a CI
// run's `up` ended its run and then never exited, held by one SSH connection to a remote
// hypervisor that nothing owned. Here a preloaded module leaves a listening socket open for good
// (a handle nothing closes); before the fix the process never exited and this test timed out.

describe('the kubemix process', () => {
  it('exits with its command’s code when a handle outlives the command', { timeout: 60_000 }, async () => {
    const leak = join(await testTempDir('exit-after-command'), 'leak.mjs');
    await writeFile(
      leak,
      "import { createServer } from 'node:net';\ncreateServer().listen(0, '127.0.0.1');\n",
    );
    const child = spawn(process.execPath, ['--import', pathToFileURL(leak).href, kubemixCli(), 'nosuch'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('kubemix: unknown command "nosuch"');
  });
});
