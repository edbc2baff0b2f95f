import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runModule } from '../../src/executor/run-module.js';
import { secretRefCheckModule } from '../../src/modules/flow/secret-ref-check.js';
import type { Module } from '../../src/modules/types.js';
import { LocalTransport } from '../../src/transport/local/index.js';
import { testTempDir } from '../helpers/temp.js';
import { context } from './drive.js';

// Run for real on this machine: the check resolves references without a secret value ever
// appearing in what the module returns (stdout, stderr, message).
const run = (args: Record<string, unknown>) =>
  runModule({
    module: secretRefCheckModule as Module<unknown>,
    args,
    context: context(),
    transport: new LocalTransport('localhost'),
  });

afterEach(() => {
  delete process.env['KMX_TEST_SECRET'];
});

describe('secret_ref_check', () => {
  it('passes for a set variable without showing its value', async () => {
    process.env['KMX_TEST_SECRET'] = 's3cret-value-xyz';
    const outcome = await run({ env: 'KMX_TEST_SECRET' });
    expect(outcome.failed).toBe(false);
    expect(JSON.stringify(outcome)).not.toContain('s3cret-value-xyz');
  });

  it('fails naming an unset variable or an unreadable file', async () => {
    expect((await run({ env: 'KMX_TEST_SECRET' })).msg).toBe(
      'environment variable KMX_TEST_SECRET is not set',
    );
    expect((await run({ file: '/nonexistent/key' })).msg).toBe('cannot read /nonexistent/key');
  });

  it('passes for a readable file without reading it into the result, and quotes odd names', async () => {
    const dir = join(await testTempDir('ref'), "odd-'$(x)");
    await mkdir(dir);
    const file = join(dir, 'key');
    await writeFile(file, 'private-key-material');
    const outcome = await run({ file });
    expect(outcome.failed).toBe(false);
    expect(JSON.stringify(outcome)).not.toContain('private-key-material');
  });

  it('takes exactly one of env or file', () => {
    expect(() => secretRefCheckModule.parseArgs({})).toThrow('exactly one of env or file');
    expect(() => secretRefCheckModule.parseArgs({ env: 'A', file: '/b' })).toThrow(
      'exactly one of env or file',
    );
  });
});
