import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/errors/index.js';
import { testTempDir } from '../helpers/temp.js';
import { COMMANDS, runCli, tempHome } from './run-cli.js';

async function greeting() {
  const dir = await testTempDir('verbosity');
  await writeFile(join(dir, 'inventory.yml'), 'all:\n  hosts:\n    h1: { ansible_connection: local }\n');
  await writeFile(
    join(dir, 'play.yml'),
    '- hosts: h1\n  tasks:\n    - name: greet\n      command: echo hello-from-h1\n',
  );
  return ['run', join(dir, 'play.yml'), '-i', join(dir, 'inventory.yml')];
}

describe('-v, -vv, -vvv', () => {
  it('every command accepts them', async () => {
    for (const command of COMMANDS) {
      for (const flag of ['-v', '-vv', '-vvv', '--verbose']) {
        const result = await runCli([command, flag, '--help'], { home: tempHome() });
        expect([command, flag, result.exitCode, result.stderr]).toEqual([command, flag, EXIT.ok, '']);
      }
    }
    const plan = await runCli(['plan', 'k8s-libvirt-1-1-1', '-vv'], { home: tempHome() });
    expect(plan.exitCode).toBe(EXIT.ok);
  });

  it('run: none shows no step detail, -v the result and output, -vv also the command', async () => {
    const args = await greeting();
    const quiet = await runCli(args, { home: tempHome() });
    expect(quiet.exitCode).toBe(EXIT.ok);
    expect(quiet.stdout).not.toContain('hello-from-h1');

    const v = await runCli([...args, '-v'], { home: tempHome() });
    expect(v.exitCode).toBe(EXIT.ok);
    expect(v.stdout).toMatch(/^ +h1 greet: changed, exit code 0$/m);
    expect(v.stdout).toMatch(/^ +stdout\| hello-from-h1$/m);
    expect(v.stdout).not.toContain('ran: ');

    const vv = await runCli([...args, '-vv'], { home: tempHome() });
    expect(vv.stdout).toMatch(/^ +ran: echo hello-from-h1$/m);

    const vvv = await runCli([...args, '-vvv'], { home: tempHome() });
    expect(vvv.stdout).toMatch(/^ +h1 stdout\| hello-from-h1$/m);
  });
});

describe('kubemix ci with -v, -vv, -vvv', () => {
  // One node whose SSH port refuses connections: the build fails at wait-for-hosts, the teardown
  // at cleanup, fast and without a cluster; what matters here is what ci prints on the way.
  const spec = 'fixtures/cli/unreachable-static.yaml';
  const ci = (flags: string[]) => {
    const home = tempHome();
    return runCli(['ci', spec, '--out', join(home, 'out'), ...flags], { home });
  };

  it('passes the level to the build and the teardown: each SSH connection attempt (where, as whom, how) at -vvv only', async () => {
    // Nothing runs a step here (the static provider prepares nothing): below -vvv, no detail.
    for (const flags of [[], ['-v'], ['-vv']]) expect((await ci(flags)).stdout).not.toMatch(/ ssh: /);

    const vvv = await ci(['-vvv']);
    // The build's wait-for-hosts and the teardown's cleanup each try node-1 once.
    const attempts = vvv.stdout.match(
      /^ +node-1 ssh: cannot connect \S+@127\.0\.0\.1:1 \(auth: [^;]+; host key strict \(known_hosts [^)]+\)\): .*connection refused/gm,
    );
    expect(attempts?.length).toBe(2);
  });
});
