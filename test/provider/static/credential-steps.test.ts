import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runModule } from '../../../src/executor/run-module.js';
import { findModule } from '../../../src/modules/registry.js';
import { credentialPreflightSteps } from '../../../src/provider/static/credential-steps.js';
import { LocalTransport } from '../../../src/transport/local/index.js';
import type { InventoryHost } from '../../../src/types/inventory.js';
import { injectionCorpus } from '../../helpers/injection-corpus.js';
import { testTempDirSync } from '../../helpers/temp.js';
import { context } from '../../modules/drive.js';

// The credential preflight runs on the machine running kubemix: its steps run for real here
// (module secret_ref_check over the local transport's /bin/sh), with every corpus value as a key
// path and as the name of a missing variable. Nothing may run; each value is reported literally.
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

async function runStep(credentials: InventoryHost['credentials']) {
  const [step] = credentialPreflightSteps([host(credentials)]);
  return runModule({
    module: findModule(step!.module)!,
    args: step!.args,
    context: context(),
    transport: new LocalTransport('localhost'),
  });
}

const corpus = injectionCorpus(canary).filter((p) => !p.value.includes('\0'));

describe('credential preflight steps', () => {
  it.each(corpus)(
    'a missing key file named like "$name" is reported literally; nothing runs',
    async ({ value }) => {
      const outcome = await runStep({ privateKey: { file: value } });
      expect(outcome.failed).toBe(true);
      expect(outcome.msg).toBe(`cannot read ${value}`);
      expect(existsSync(canary)).toBe(false);
    },
  );

  it.each(corpus)(
    'an unset variable named like "$name" is reported literally; nothing runs',
    async ({ value }) => {
      const outcome = await runStep({ password: { env: value } });
      expect(outcome.failed).toBe(true);
      expect(outcome.msg).toBe(`environment variable ${value} is not set`);
      expect(existsSync(canary)).toBe(false);
    },
  );
});
