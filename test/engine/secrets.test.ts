import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSecrets, runPlan } from '../../src/engine/index.js';
import { localHosts, localTransports, makePlan, recorder, shell, task, tempDir } from './helpers.js';

const TOKEN = 'abcdef.0123456789abcdef';

describe('secret outputs', () => {
  it('stay in secrets.json (0600) and out of state, events, messages and failures', async () => {
    const dir = await tempDir();
    const clusterDir = join(dir, 'cluster');
    const plan = makePlan(
      [
        task(
          'init',
          [],
          ['cp-1'],
          [shell('create token', `echo ${TOKEN}`, { register: 'join_token', secret: true })],
        ),
        task(
          'join',
          ['init'],
          ['w-1'],
          [
            // Uses the token, prints it on both streams (in pieces and whole), then fails.
            shell(
              'join',
              'printf "token=%s" "$(echo {{ outputs.join_token }} | cut -c1-7)"; sleep 0.05; echo {{ outputs.join_token }} | cut -c8-; ' +
                'echo "bad token {{ outputs.join_token }}" >&2; exit 1',
            ),
          ],
        ),
      ],
      localHosts('cp-1', 'w-1'),
    );
    const events = recorder();
    const summary = await runPlan({ plan, clusterDir, transports: localTransports, onEvent: events.onEvent });
    expect(summary.status).toBe('failed');
    // The template did receive the real value.
    expect(summary.error).toContain('bad token ***');

    const secretsFile = join(clusterDir, 'secrets.json');
    expect((await stat(secretsFile)).mode & 0o777).toBe(0o600);
    expect(await readSecrets(clusterDir)).toEqual({ 'cp-1': { join_token: TOKEN } });
    expect(await readFile(join(clusterDir, 'state.json'), 'utf8')).not.toContain(TOKEN);
    expect(await readFile(join(clusterDir, 'state.json'), 'utf8')).not.toContain('join_token');
    for (const text of [JSON.stringify(events.events), JSON.stringify(summary)]) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain('0123456789abcdef');
    }
    // The producing step's output is hidden whole, not streamed.
    const tokenStep = events.of('step-end').find((e) => e.step === 'create token');
    expect(tokenStep?.result.stdout).toBe('[secret output hidden]');
    expect(events.of('step-output').filter((e) => e.step === 'create token')).toEqual([]);
    expect(
      events
        .of('step-output')
        .map((e) => e.data)
        .join(''),
    ).toContain('token=***');
  });

  it('are loaded again on a re-run, usable in templates and still redacted', async () => {
    const dir = await tempDir();
    const clusterDir = join(dir, 'cluster');
    const plan = makePlan([
      task(
        'init',
        [],
        ['localhost'],
        [shell('create token', `echo ${TOKEN}`, { register: 'join_token', secret: true })],
      ),
      task(
        'use',
        ['init'],
        ['localhost'],
        [shell('use', `echo {{ outputs.join_token }} > ${dir}/used; echo {{ outputs.join_token }}`)],
      ),
    ]);
    await runPlan({ plan, clusterDir, transports: localTransports, stopAfter: 'init' });
    const events = recorder();
    const summary = await runPlan({ plan, clusterDir, transports: localTransports, onEvent: events.onEvent });
    expect(summary.status).toBe('succeeded');
    expect(events.started()).toEqual(['use']);
    expect((await readFile(join(dir, 'used'), 'utf8')).trim()).toBe(TOKEN);
    expect(JSON.stringify(events.events)).not.toContain(TOKEN);
    expect(events.of('step-end')[0]?.result.command).toBe(`echo *** > ${dir}/used; echo ***`);
  });
});
