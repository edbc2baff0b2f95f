import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeTask, mergeVars, taskFromPlanStep } from '../../src/playbook/index.js';
import { LocalTransport } from '../../src/transport/local/index.js';
import type { InventoryHost } from '../../src/types/inventory.js';
import { testTempDir } from '../helpers/temp.js';

const host: InventoryHost = {
  name: 'node1',
  address: '127.0.0.1',
  os: 'linux',
  connection: 'local',
  role: 'worker',
  group: 'workers',
};
const transport = new LocalTransport('node1');

let dir: string;
beforeEach(async () => {
  dir = await testTempDir('exec');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('executeTask with cluster plan steps', () => {
  it('retries a failing step with a doubling delay and reports each retry', async () => {
    const counter = join(dir, 'n');
    const task = taskFromPlanStep({
      name: 'flaky',
      module: 'shell',
      args: {
        cmd: `n=$(cat ${counter} 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${counter}; [ $n -ge 3 ]`,
      },
      retries: 4,
      delayMs: 20,
    });
    const retries: Array<{ attempt: number; delayMs: number }> = [];
    const outcome = await executeTask({
      task,
      host,
      transport,
      vars: {},
      onRetry: ({ attempt, delayMs }) => retries.push({ attempt, delayMs }),
    });
    expect(outcome).toMatchObject({ status: 'changed', failed: false, attempts: 3 });
    expect(retries).toEqual([
      { attempt: 1, delayMs: 20 },
      { attempt: 2, delayMs: 40 },
    ]);
    expect(await readFile(counter, 'utf8')).toBe('3\n');
  });

  it('gives up after the retries with the last failure', async () => {
    const task = taskFromPlanStep({
      name: 'always fails',
      module: 'shell',
      args: { cmd: 'echo nope >&2; exit 7' },
      retries: 1,
      delayMs: 1,
    });
    const outcome = await executeTask({ task, host, transport, vars: {} });
    expect(outcome).toMatchObject({ status: 'failed', attempts: 2, registered: { rc: 7, stderr: 'nope' } });
    expect(outcome.lastResult).toMatchObject({ exitCode: 7, failed: true });
  });

  it('renders arguments with lazily templated variables and drops omitted ones', async () => {
    const vars = mergeVars([
      { values: { omit: '__omit_place_holder__kubemix' } },
      { values: { dir, file: '{{ dir }}/{{ name }}.txt', name: 'out' }, templated: true },
    ]);
    const task = taskFromPlanStep({
      name: 'write',
      module: 'copy',
      args: { content: '{{ name }}\n', dest: '{{ file }}', mode: '{{ omit }}' },
    });
    const outcome = await executeTask({ task, host, transport, vars });
    expect(outcome.status).toBe('changed');
    expect(await readFile(join(dir, 'out.txt'), 'utf8')).toBe('out\n');
  });

  it('reports bad module arguments as a failed task naming the argument', async () => {
    const task = taskFromPlanStep({ name: 'bad', module: 'copy', args: { dest: '/x' } });
    const outcome = await executeTask({ task, host, transport, vars: {} });
    expect(outcome).toMatchObject({ status: 'failed', msg: 'copy: give exactly one of "src" or "content"' });
  });
});
