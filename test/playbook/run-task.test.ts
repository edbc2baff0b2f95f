import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatEventLine } from '../../src/cli/render/line-log.js';
import { parseInventory, parsePlaybook, runPlaybook } from '../../src/playbook/index.js';
import type { RunEvent } from '../../src/types/events.js';
import { testTempDir } from '../helpers/temp.js';
import { eventLog, localTransports } from './helpers.js';

const inventory = () => parseInventory('all:\n  hosts:\n    web1: { ansible_connection: local }\n');

/** `kubemix run` of one play of `tasks` (YAML lines) on a local host. */
async function run(work: string, tasks: string[]) {
  const log = eventLog();
  const result = await runPlaybook({
    playbook: {
      ...parsePlaybook(['- hosts: all', '  gather_facts: false', '  tasks:', ...tasks].join('\n')),
      dir: work,
    },
    inventory: inventory(),
    transports: localTransports,
    onEvent: log.onEvent,
  });
  return { result, events: log.events };
}

const retries = (events: RunEvent[]) =>
  events.filter((e): e is Extract<RunEvent, { type: 'step-retry' }> => e.type === 'step-retry');

let work: string;
beforeEach(async () => {
  work = await testTempDir('run-task');
});
afterEach(() => rm(work, { recursive: true, force: true }));

describe('retries in kubemix run', () => {
  it('numbers a step-retry by the attempt that failed, as the line log says', async () => {
    const counter = join(work, 'n');
    const { result, events } = await run(work, [
      '    - name: until three',
      `      shell: n=$(cat ${counter} 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${counter}; echo $n`,
      '      register: count',
      '      until: count.stdout | int >= 3',
      '      retries: 4',
      '      delay: 0.002',
    ]);
    expect(result.exitCode).toBe(0);
    expect(await readFile(counter, 'utf8')).toBe('3\n');
    const seen = retries(events);
    expect(seen.map((e) => [e.attempt, e.result.stdout])).toEqual([
      [1, '1\n'],
      [2, '2\n'],
    ]);
    expect(formatEventLine(seen[0]!)).toBe(
      'RETRY until three web1: until three (attempt 1 failed, next in 2 ms)',
    );
  });

  it("ends the task at an attempt that outlives `timeout`, without the remaining attempts (Ansible's timeout)", async () => {
    const counter = join(work, 'n');
    const { result, events } = await run(work, [
      '    - name: hangs',
      `      shell: n=$(cat ${counter} 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${counter}; sleep 30`,
      '      timeout: 0.3',
      '      retries: 3',
      '      delay: 0',
    ]);
    expect(result.exitCode).not.toBe(0);
    expect(await readFile(counter, 'utf8')).toBe('1\n');
    expect(retries(events)).toEqual([]);
    const end = events.find((e) => e.type === 'step-end');
    expect(end).toMatchObject({ status: 'failed', result: { timedOut: true } });
  });
});
