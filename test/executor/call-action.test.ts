import { describe, expect, it } from 'vitest';
import { runModule } from '../../src/executor/run-module.js';
import type { Module, ModuleRun } from '../../src/modules/types.js';
import { LocalTransport } from '../../src/transport/local/index.js';
import { LOCALHOST } from '../../src/types/localhost.js';
import type { ProvisionLedger } from '../../src/types/provision.js';

const localhost = LOCALHOST;

// A provider-style module: the in-process work runs in the executor; the module sees its result.
const callModule: Module<{ fail: boolean }> = {
  name: 'test_call',
  os: 'any',
  parseArgs: (raw) => ({ fail: raw['fail'] === true }),
  *run(args): ModuleRun {
    let seen: string | undefined;
    const result = yield {
      kind: 'call',
      what: 'talk to the API',
      run: async (io) => {
        io.progress('halfway');
        await io.ledger?.record({ resources: [] });
        if (args.fail) throw new Error('the API said no');
        seen = `ledger ${io.ledger ? 'given' : 'missing'}`;
      },
    };
    if (result.failed) return { changed: false, failed: true, msg: result.stderr };
    return { changed: true, failed: false, msg: seen ?? '' };
  },
};

describe('the call action', () => {
  const ledger: ProvisionLedger & { updates: number } = {
    resources: [],
    updates: 0,
    async record() {
      this.updates += 1;
    },
  };
  const run = (fail: boolean, output: string[]) =>
    runModule({
      module: callModule as Module<unknown>,
      args: { fail },
      context: { host: localhost, os: 'linux', vars: {}, checkMode: false, ledger },
      transport: new LocalTransport('localhost'),
      onOutput: (chunk) => output.push(chunk.data),
    });

  it('runs the function with the run ledger, progress as output, and reports its completion', async () => {
    const output: string[] = [];
    const outcome = await run(false, output);
    expect(outcome).toMatchObject({ changed: true, failed: false, msg: 'ledger given' });
    expect(output).toEqual(['halfway\n']);
    expect(ledger.updates).toBe(1);
    expect(outcome.results[0]).toMatchObject({
      command: 'talk to the API',
      failed: false,
      host: 'localhost',
    });
  });

  it('turns a throw into a failed result carrying the message', async () => {
    const outcome = await run(true, []);
    expect(outcome).toMatchObject({ failed: true, msg: 'the API said no' });
    expect(outcome.results[0]).toMatchObject({ command: 'talk to the API', failed: true });
  });
});
