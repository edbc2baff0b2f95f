import { describe, expect, it } from 'vitest';
import { formatEventLine } from '../../src/cli/render/line-log.js';
import { runPlan, type StepExecutor } from '../../src/engine/index.js';
import { testTempDir } from '../helpers/temp.js';
import { localTransports, makePlan, recorder, shell, task } from './helpers.js';

const ok = {
  command: 'wait',
  exitCode: 0,
  signal: null,
  stdout: '',
  stderr: '',
  durationMs: 1,
  failed: false,
  timedOut: false,
};

// A step that reports what it sees while it waits, as the Windows install wait does.
const waiting: StepExecutor = async (request) => {
  request.onProgress('Windows Setup: specialize (domain running (booted), 1 reboot seen, 12m05s of 45m00s)');
  request.onProgress(
    'first logon script running (domain running (booted), 2 reboots seen, 20m00s of 45m00s)',
  );
  return { changed: false, failed: false, results: [ok] };
};

describe('step-progress events', () => {
  it('carry what a long step sees, and the plain log shows each line', async () => {
    const dir = await testTempDir('step-progress');
    const events = recorder();
    await runPlan({
      plan: makePlan([task('wait-for-hosts', [], ['localhost'], [shell('wait for Windows', 'true')])]),
      clusterDir: dir,
      transports: localTransports,
      executeStep: waiting,
      onEvent: events.onEvent,
    });
    const progress = events.of('step-progress');
    expect(progress.map((e) => [e.task, e.host, e.step])).toEqual([
      ['wait-for-hosts', 'localhost', 'wait for Windows'],
      ['wait-for-hosts', 'localhost', 'wait for Windows'],
    ]);
    expect(formatEventLine(progress[0]!)).toBe(
      'WAIT  wait-for-hosts localhost: Windows Setup: specialize (domain running (booted), 1 reboot seen, 12m05s of 45m00s)',
    );
  });

  it('are not sent for a no_log step', async () => {
    const dir = await testTempDir('step-progress');
    const events = recorder();
    await runPlan({
      plan: makePlan([task('t', [], ['localhost'], [shell('secret wait', 'true', { secret: true })])]),
      clusterDir: dir,
      transports: localTransports,
      executeStep: waiting,
      onEvent: events.onEvent,
    });
    expect(events.of('step-progress')).toEqual([]);
  });
});
