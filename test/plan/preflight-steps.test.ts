import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { credentialPreflightSteps } from '../../src/plan/preflight-steps.js';
import type { InventoryHost } from '../../src/types/inventory.js';
import { injectionCorpus } from '../helpers/injection-corpus.js';
import { testTempDirSync } from '../helpers/temp.js';

// The credential preflight runs on the machine running kubemix: its commands go to a real
// /bin/sh here, with every corpus value as a key path and as the name of a missing variable.
const dir = testTempDirSync('preflight');
const canary = join(dir, 'canary');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const host = (credentials: InventoryHost['credentials']): InventoryHost => ({
  name: 'cp1',
  address: '192.0.2.10',
  os: 'linux',
  connection: 'ssh',
  role: 'control-plane',
  group: 'control-plane',
  ...(credentials ? { credentials } : {}),
});

function run(cmd: string) {
  return spawnSync('/bin/sh', ['-c', cmd], {
    cwd: dir,
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] },
  });
}

const corpus = injectionCorpus(canary).filter((p) => !p.value.includes('\0'));

describe('credential preflight commands', () => {
  it.each(corpus)(
    'a missing key file named like "$name" is reported literally; nothing runs',
    ({ value }) => {
      const [step] = credentialPreflightSteps([host({ privateKey: { file: value } })]);
      const result = run(step!.args['cmd'] as string);
      expect(result.status).toBe(1);
      expect(result.stderr).toBe(`cannot read ${value}\n`);
      expect(existsSync(canary)).toBe(false);
    },
  );

  it.each(corpus)('an unset variable named like "$name" is reported literally; nothing runs', ({ value }) => {
    const [step] = credentialPreflightSteps([host({ password: { env: value } })]);
    const result = run(step!.args['cmd'] as string);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(`environment variable ${value} is not set\n`);
    expect(existsSync(canary)).toBe(false);
  });

  it('~/ paths still expand to the home directory', () => {
    const [step] = credentialPreflightSteps([host({ privateKey: { file: '~/.no-such-kmx-key' } })]);
    expect(step!.args['cmd']).toContain(`"$HOME"/'.no-such-kmx-key'`);
  });
});
