import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runClusterPlan } from '../../src/cluster/run-plan.js';
import { readState } from '../../src/engine/index.js';
import { registerModule } from '../../src/modules/registry.js';
import type { Module, ModuleRun } from '../../src/modules/types.js';
import { shQuote } from '../../src/quote/index.js';
import type { InventoryHost } from '../../src/types/inventory.js';
import type { ProviderResource } from '../../src/types/provision.js';
import { testTempDir } from '../helpers/temp.js';
import { localTransports, makePlan, shell, task } from './helpers.js';

// The provider seam as EC2 needs it: a host whose address is unknown until create-hosts. A
// provider-style module records its intent, checks that the intent is on disk, "creates" (a
// marker file), then records the resource as created and assigns the host its address.
const resource = (status: ProviderResource['status']): ProviderResource => ({
  provider: 'ec2',
  kind: 'instance',
  name: 'i-lab-node-1',
  location: 'test-region',
  status,
  details: { token: 'lab-node-1' },
});

const testCreateModule: Module<{ stateFile: string; marker: string }> = {
  name: 'test_provision_create',
  os: 'linux',
  parseArgs: (raw) => ({ stateFile: String(raw['stateFile']), marker: String(raw['marker']) }),
  *run(args): ModuleRun {
    const intent = yield { kind: 'record', update: { resources: [resource('intended')] } };
    if (intent.failed) return { changed: false, failed: true, msg: intent.stderr };
    // What a killed run would leave: the intent already in state.json before the create call.
    const onDisk = yield {
      kind: 'exec',
      command: `grep -q '"status": "intended"' ${shQuote(args.stateFile)} && touch ${shQuote(args.marker)}`,
    };
    if (onDisk.failed)
      return { changed: false, failed: true, msg: 'intent was not on disk before the create call' };
    yield {
      kind: 'record',
      update: {
        resources: [{ ...resource('created'), details: { address: '127.0.0.1' } }],
        hosts: [{ name: 'node-1', address: '127.0.0.1', vars: { instance_id: 'i-lab-node-1' } }],
      },
    };
    return { changed: true, failed: false };
  },
};
registerModule(testCreateModule);

const pending: InventoryHost = {
  name: 'node-1',
  address: '',
  os: 'linux',
  connection: 'local',
  role: 'worker',
  group: 'workers',
};

function plan(dir: string, clusterDir: string) {
  return makePlan(
    [
      task(
        'create-hosts',
        [],
        ['localhost'],
        [
          {
            name: 'create',
            module: 'test_provision_create',
            args: { stateFile: join(clusterDir, 'state.json'), marker: join(dir, 'created') },
          },
        ],
      ),
      task(
        'use',
        ['create-hosts'],
        ['node-1'],
        [shell('address', `echo "{{ ansible_host }} {{ instance_id }}" >> ${dir}/used`)],
      ),
    ],
    [pending],
  );
}

describe('provider records', () => {
  it('records intent before the create call, then the resource and the host assignment later tasks use', async () => {
    const dir = await testTempDir('provision');
    const clusterDir = join(dir, 'cluster');
    const summary = await runClusterPlan({
      plan: plan(dir, clusterDir),
      clusterDir,
      transports: localTransports,
    });
    expect(summary.status, summary.error).toBe('succeeded');
    expect(await readFile(join(dir, 'used'), 'utf8')).toBe('127.0.0.1 i-lab-node-1\n');
    const state = await readState(clusterDir);
    expect(state?.resources).toEqual([
      expect.objectContaining({
        ...resource('created'),
        details: { token: 'lab-node-1', address: '127.0.0.1' },
      }),
    ]);
    expect(state?.inventory.find((h) => h.name === 'node-1')).toMatchObject({
      address: '127.0.0.1',
      vars: { instance_id: 'i-lab-node-1' },
    });
  });

  it('reads the assigned inventory back on a later run (the plan still has no address)', async () => {
    const dir = await testTempDir('provision');
    const clusterDir = join(dir, 'cluster');
    await runClusterPlan({ plan: plan(dir, clusterDir), clusterDir, transports: localTransports });
    const again = await runClusterPlan({
      plan: plan(dir, clusterDir),
      clusterDir,
      transports: localTransports,
      from: 'use',
    });
    expect(again.tasks['create-hosts']?.reason).toBe('already-done');
    expect(again.status, again.error).toBe('succeeded');
    expect(await readFile(join(dir, 'used'), 'utf8')).toBe('127.0.0.1 i-lab-node-1\n'.repeat(2));
  });

  it('records into another cluster directory state when asked (down records in the build state)', async () => {
    const dir = await testTempDir('provision');
    const clusterDir = join(dir, 'cluster');
    await runClusterPlan({ plan: plan(dir, clusterDir), clusterDir, transports: localTransports });
    const deleting: Module<Record<string, never>> = {
      name: 'test_provision_delete',
      os: 'linux',
      parseArgs: () => ({}),
      *run(_args, context): ModuleRun {
        const live = (context.ledger?.resources ?? []).filter((r) => r.status !== 'deleted');
        yield { kind: 'record', update: { resources: live.map((r) => ({ ...r, status: 'deleted' })) } };
        return { changed: live.length > 0, failed: false };
      },
    };
    registerModule(deleting);
    const teardown = makePlan([
      task('destroy', [], ['localhost'], [{ name: 'delete', module: 'test_provision_delete', args: {} }]),
    ]);
    const summary = await runClusterPlan({
      plan: teardown,
      clusterDir: join(clusterDir, 'teardown'),
      transports: localTransports,
      ledgerDir: clusterDir,
    });
    expect(summary.status, summary.error).toBe('succeeded');
    expect((await readState(clusterDir))?.resources.map((r) => r.status)).toEqual(['deleted']);
    expect((await readState(join(clusterDir, 'teardown')))?.resources).toEqual([]);
  });

  it('fails a record action where there is no state (kubemix run)', async () => {
    const { runModule } = await import('../../src/executor/run-module.js');
    const { LocalTransport } = await import('../../src/transport/local/index.js');
    const outcome = await runModule({
      module: testCreateModule as Module<unknown>,
      args: { stateFile: '/nonexistent', marker: '/nonexistent' },
      context: { host: pending, os: 'linux', vars: {}, checkMode: false },
      transport: new LocalTransport('localhost'),
    });
    expect(outcome.failed).toBe(true);
    expect(outcome.msg).toMatch(/only inside kubemix up and down/);
  });
});
