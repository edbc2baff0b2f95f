import { readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runClusterPlan } from '../../src/cluster/run-plan.js';
import { readSecrets } from '../../src/engine/index.js';
import { testTempDir } from '../helpers/temp.js';
import { localHosts, localTransports, makePlan, runLocally as runRecorded, shell, task } from './helpers.js';

const dirs: string[] = [];
/** A fresh directory, removed after the test. */
async function freshDir(): Promise<string> {
  const dir = await testTempDir('engine');
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const TOKEN = 'abcdef.0123456789abcdef';

describe('secret outputs', () => {
  it('stay in secrets.json (0600) and out of state, events, messages and failures', async () => {
    const dir = await freshDir();
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
    const { events, summary } = await runRecorded(plan, clusterDir);
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
    // The producing step is hidden whole, as Ansible hides a no_log result, and not streamed.
    const tokenStep = events.of('step-end').find((e) => e.step === 'create token');
    expect(tokenStep?.result).toMatchObject({ command: '<hidden by no_log>', stdout: '', stderr: '' });
    expect(events.of('step-output').filter((e) => e.step === 'create token')).toEqual([]);
    expect(
      events
        .of('step-output')
        .map((e) => e.data)
        .join(''),
    ).toContain('token=***');
  });

  it('are loaded again on a re-run, usable in templates and still redacted', async () => {
    const dir = await freshDir();
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
    await runClusterPlan({ plan, clusterDir, transports: localTransports, stopAfter: 'init' });
    const { events, summary } = await runRecorded(plan, clusterDir);
    expect(summary.status).toBe('succeeded');
    expect(events.started()).toEqual(['use']);
    expect((await readFile(join(dir, 'used'), 'utf8')).trim()).toBe(TOKEN);
    expect(JSON.stringify(events.events)).not.toContain(TOKEN);
    expect(events.of('step-end')[0]?.result.command).toBe(`echo *** > ${dir}/used; echo ***`);
  });
});

// The up path's executor (cluster playbook steps, Jinja templates) with the shapes kubeadm prints:
// `kubeadm init phase upload-certs --upload-certs` ends with the key on its own line,
// `kubeadm token create --print-join-command` prints one command line.
const KEY = '6f0ad3c8e5b84f7c9d0e1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7';
const CA_HASH = 'sha256:1a1599705b8f23b3ab13d1f3bd1b6c45444ecfd7e0450774b7b724f2b019764c';
const producers = [
  shell('upload certs', `printf '%s\\n' '[upload-certs] Using certificate key:' ${KEY}`, {
    register: 'certificate_upload',
    secret: true,
    keywords: {},
  }),
  shell(
    'join command',
    `echo kubeadm join 10.0.0.1:6443 --token ${TOKEN} --discovery-token-ca-cert-hash ${CA_HASH}`,
    {
      register: 'join_command',
      secret: true,
      keywords: {},
    },
  ),
];

describe('secrets derived from secret outputs', () => {
  it('are redacted by line and by word in commands, output, failures and state; the CA hash stays', async () => {
    const clusterDir = join(await freshDir(), 'cluster');
    const plan = makePlan([
      task(
        'init',
        [],
        ['localhost'],
        [
          ...producers,
          shell(
            'join',
            'echo "{{ join_command.stdout }} --control-plane --certificate-key {{ certificate_upload.stdout_lines | last }}"',
            { register: 'joined', keywords: {} },
          ),
          shell('refused', 'echo "bad key {{ certificate_upload.stdout_lines | last }}" >&2; exit 1', {
            keywords: {},
          }),
        ],
      ),
    ]);
    const { events, summary } = await runRecorded(plan, clusterDir);
    expect(summary.status).toBe('failed');
    const shown = `kubeadm join 10.0.0.1:6443 --token *** --discovery-token-ca-cert-hash ${CA_HASH} --control-plane --certificate-key ***`;
    const joinStep = events.of('step-end').find((e) => e.step === 'join');
    expect(joinStep?.result.command).toContain(shown);
    expect(joinStep?.result.stdout).toBe(`${shown}\n`);
    expect(summary.failures[0]?.stderrTail).toBe('bad key ***');
    const state = await readFile(join(clusterDir, 'state.json'), 'utf8');
    for (const text of [JSON.stringify(events.events), JSON.stringify(summary), state]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(TOKEN);
    }
    // A value built from a secret is kept with the secrets.
    expect(Object.keys((await readSecrets(clusterDir))['localhost'] ?? {}).sort()).toEqual([
      'certificate_upload',
      'join_command',
      'joined',
    ]);
  });

  it('are still known, piece by piece, to a resumed run (read back from secrets.json)', async () => {
    const clusterDir = join(await freshDir(), 'cluster');
    const plan = makePlan([
      task('init', [], ['localhost'], producers),
      task(
        'use',
        ['init'],
        ['localhost'],
        [
          shell(
            'use',
            'echo key={{ outputs.certificate_upload.splitlines() | last }} token={{ outputs.join_command.split()[4] }}',
            {
              keywords: {},
            },
          ),
        ],
      ),
    ]);
    await runClusterPlan({ plan, clusterDir, transports: localTransports, stopAfter: 'init' });
    const { events, summary } = await runRecorded(plan, clusterDir);
    expect(summary.status).toBe('succeeded');
    expect(events.started()).toEqual(['use']);
    expect(events.of('step-end')[0]?.result.stdout).toBe('key=*** token=***\n');
    expect(JSON.stringify(events.events)).not.toContain(KEY);
    expect(JSON.stringify(events.events)).not.toContain(TOKEN);
  });

  it('never come from a failed no_log step: its command and output stay hidden, how it ended is told', async () => {
    const clusterDir = join(await freshDir(), 'cluster');
    const plan = makePlan([
      task(
        'init',
        [],
        ['localhost'],
        [
          shell('init', `echo "password ${KEY}"; echo "cannot use ${KEY}" >&2; exit 3`, {
            secret: true,
            keywords: {},
          }),
        ],
      ),
    ]);
    const { events, summary } = await runRecorded(plan, clusterDir);
    expect(summary.failures).toEqual([
      {
        task: 'init',
        host: 'localhost',
        step: 'init',
        command: 'shell <hidden by no_log>',
        exitCode: 3,
        stderrTail: 'exit code 3: non-zero return code (output hidden by no_log)',
      },
    ]);
    expect(summary.error).toContain('exit code 3: non-zero return code (output hidden by no_log)');
    expect(JSON.stringify(events.events)).not.toContain(KEY);
  });
});

describe('a failed no_log step', () => {
  it('tells its error (the provider message) with every known secret replaced; a successful one shows nothing', async () => {
    const clusterDir = join(await freshDir(), 'cluster');
    // As EC2's create-hosts fails on the account's instance limit: the step is no_log because
    // what it registers is secret, but its error carries none, and must be read.
    const limit =
      'InstanceLimitExceeded: You have requested more instances (5) than your current instance limit of 4 allows';
    const plan = makePlan(
      [
        task(
          'init',
          [],
          ['cp-1'],
          [shell('create token', `echo ${TOKEN}`, { register: 'join_token', secret: true })],
        ),
        task(
          'launch',
          ['init'],
          ['cp-1'],
          [
            {
              name: 'launch the instances',
              module: 'fail',
              args: { msg: `${limit} (request signed for token {{ outputs.join_token }})` },
              secret: true,
            },
          ],
        ),
      ],
      localHosts('cp-1'),
    );
    const { events, summary } = await runRecorded(plan, clusterDir);
    expect(summary.status).toBe('failed');
    const told = `${limit} (request signed for token ***) (output hidden by no_log)`;
    // The terminal prints summary.error and the failures; status prints the state's last run.
    expect(summary.error).toContain(told);
    // A failed `fail` step reads as exit code 1 on the step path users run (the playbook executor
    // reports a module that ran no command as a failed result with exit code 1).
    expect(summary.failures[0]).toMatchObject({
      command: 'fail <hidden by no_log>',
      stderrTail: `exit code 1: ${told}`,
    });
    const taskEnd = events.of('task-end').find((e) => e.task === 'launch');
    expect(taskEnd?.error).toContain(told);
    const state = JSON.parse(await readFile(join(clusterDir, 'state.json'), 'utf8'));
    expect(state.lastRun.message).toContain(told);
    // The successful no_log step: neither command nor output.
    const created = events.of('step-end').find((e) => e.step === 'create token');
    expect(created?.result).toMatchObject({ command: '<hidden by no_log>', stdout: '', stderr: '' });
    expect(events.of('step-output').filter((e) => e.step === 'create token')).toEqual([]);
    for (const text of [JSON.stringify(events.events), JSON.stringify(summary), JSON.stringify(state)])
      expect(text).not.toContain(TOKEN);
  });
});
