import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatRecap, type PlaybookResult, runPlaybook } from '../../src/playbook/index.js';
import type { RunEvent } from '../../src/types/events.js';
import { openPort } from '../helpers/tcp-port.js';
import { testTempDir } from '../helpers/temp.js';
import { eventLog, FIXTURES, fixtureInventory, localTransports } from './helpers.js';

// The every-keyword fixture on three inventory hosts that are real local processes
// (ansible_connection: local), with a TCP port opened here for wait_for.
describe('every-keyword.yml on local hosts', () => {
  let work: string;
  let result: PlaybookResult;
  let events: RunEvent[];

  beforeAll(async () => {
    work = await testTempDir('playbook');
    const server = await openPort();
    const log = eventLog();
    events = log.events;
    try {
      result = await runPlaybook({
        playbook: join(FIXTURES, 'playbooks/every-keyword.yml'),
        inventory: await fixtureInventory('local.yml'),
        transports: localTransports,
        extraVars: { work_dir: work, wait_port: server.port },
        onEvent: log.onEvent,
      });
    } finally {
      await server.close();
    }
  });
  afterAll(() => rm(work, { recursive: true, force: true }));

  it('succeeds on every host with exit code 0', () => {
    const failures = result.records.filter((r) => r.status === 'failed' && !r.ignored);
    expect(failures).toEqual([]);
    expect(result.exitCode).toBe(0);
    expect(result.status).toBe('succeeded');
  });

  it('counts ok/changed/skipped/ignored like Ansible', () => {
    // web1 also ran the run_once task; db1 skipped the web-only task.
    expect(result.stats).toEqual({
      web1: { ok: 34, changed: 21, unreachable: 0, failed: 0, skipped: 1, rescued: 0, ignored: 1 },
      web2: { ok: 33, changed: 20, unreachable: 0, failed: 0, skipped: 1, rescued: 0, ignored: 1 },
      db1: { ok: 32, changed: 19, unreachable: 0, failed: 0, skipped: 2, rescued: 0, ignored: 1 },
    });
  });

  it('left the files the modules and handlers wrote', async () => {
    for (const host of ['web1', 'web2', 'db1']) {
      const dir = join(work, host);
      expect(await readFile(join(dir, 'config.txt'), 'utf8')).toBe(
        'name=kubemix-demo\nmode=final\nadded=yes\n',
      );
      expect(await readFile(join(dir, 'app.conf'), 'utf8')).toContain(
        `# kubemix-demo on ${host}\ncolour=blue\nreplicas=2\n`,
      );
      expect(await readFile(join(dir, 'handler-config'), 'utf8')).toBe('config handler ran\n');
      expect(await readFile(join(dir, 'handler-app'), 'utf8')).toBe('app handler ran\n');
      expect(await readFile(join(dir, 'counter'), 'utf8')).toBe('3\n');
      expect(existsSync(join(dir, 'pkg-alpha')) && existsSync(join(dir, 'pkg-gamma'))).toBe(true);
      expect(existsSync(join(dir, 'pkg-beta'))).toBe(false);
      expect(existsSync(join(dir, 'extra-tag'))).toBe(true);
      expect(existsSync(join(work, `delegated-${host}`))).toBe(true);
      expect(await readFile(join(work, 'fetched', host, dir, 'config.txt'), 'utf8')).toContain('added=yes');
    }
    expect(await readFile(join(work, 'db1', 'app.conf'), 'utf8')).toContain('role=database');
  });

  it('ran handlers after the tasks, once per host', () => {
    const starts = events.filter((e) => e.type === 'task-start').map((e) => (e as { task: string }).task);
    expect(starts.slice(-2)).toEqual(['config changed', 'reload the app']);
    const handlerSteps = events.filter((e) => e.type === 'step-end' && e.task === 'config changed');
    expect(handlerSteps.map((e) => (e as { host: string }).host).sort()).toEqual(['db1', 'web1', 'web2']);
  });

  it('ran run_once on the first host only and streamed step events', () => {
    const once = events.filter((e) => e.type === 'step-start' && e.task === 'run once for the whole play');
    expect(once.map((e) => (e as { host: string }).host)).toEqual(['web1']);
    const retries = events.filter((e) => e.type === 'step-retry' && e.host === 'web1');
    // The attempt that failed, as the renderers say ("attempt N failed").
    expect(retries.map((e) => (e as { attempt: number }).attempt)).toEqual([1, 2]);
    expect(events[0]?.type).toBe('run-start');
    expect(events.at(-1)).toMatchObject({ type: 'run-end', status: 'succeeded' });
  });

  it('prints an Ansible-like recap', () => {
    const recap = formatRecap(result);
    expect(recap.split('\n')[0]).toMatch(/^PLAY RECAP \*+$/);
    expect(recap).toContain(
      'web1                       : ok=34   changed=21   unreachable=0    failed=0    skipped=1    rescued=0    ignored=1',
    );
  });

  it('runs only the tasks selected by --tags (never-tagged cleanup included when asked)', async () => {
    const second = await runPlaybook({
      playbook: join(FIXTURES, 'playbooks/every-keyword.yml'),
      inventory: await fixtureInventory('local.yml'),
      transports: localTransports,
      extraVars: { work_dir: work },
      tags: ['cleanup'],
    });
    expect(second.exitCode).toBe(0);
    expect(second.records.map((r) => r.task)).toEqual([
      'only with --tags cleanup',
      'only with --tags cleanup',
      'only with --tags cleanup',
    ]);
    for (const host of ['web1', 'web2', 'db1']) expect(existsSync(join(work, host))).toBe(false);
  });
});
