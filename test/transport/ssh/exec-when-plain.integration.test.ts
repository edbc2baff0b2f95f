import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { shQuote } from '../../../src/quote/index.js';
import { execWhenPlain } from '../../../src/transport/ssh/exec-when-plain.js';

// execWhenPlain must not change what a command does, only how many processes run it: the real
// dash (the session shell on Debian hosts) runs each command both ways, as a session block does
// (a subshell, eval, stdin from /dev/null), and the output and exit status must agree.
async function runBoth(command: string) {
  const run = (text: string) =>
    execa('dash', ['-c', `( eval ${shQuote(text)} ) </dev/null`], { reject: false, cwd: '/tmp' });
  const [plain, execd] = await Promise.all([run(command), run(execWhenPlain(command))]);
  return { plain, execd };
}

describe('execWhenPlain against dash', () => {
  it.each([
    '/bin/true',
    '/bin/false',
    'ls -d /tmp /nonexistent-kmx',
    ['/usr/bin/printf', '%s|', "it's", 'a b', ''].map(shQuote).join(' '),
    "sh -c 'exit 7'",
    'cd /',
    'echo a  b',
    'A=1 env',
    'ls $HOME',
  ])('%s: the same stdout, stderr and exit status', async (command) => {
    const { plain, execd } = await runBoth(command);
    expect(execd.stdout).toBe(plain.stdout);
    expect(execd.stderr).toBe(plain.stderr);
    expect(execd.exitCode).toBe(plain.exitCode);
  });

  it('a program that is not installed still fails with 127, named in the message', async () => {
    const { plain, execd } = await runBoth('kmx-no-such-program --flag');
    expect(execd.exitCode).toBe(127);
    expect(plain.exitCode).toBe(127);
    expect(execd.stderr).toMatch(/kmx-no-such-program: not found/);
  });

  it('the program replaces the subshell: one process fewer', async () => {
    // $$ is dash's own PID; in place of the subshell, sh -c reports its parent as dash itself.
    const parentOf = async (command: string) =>
      (await execa('dash', ['-c', `echo $$; ( eval ${shQuote(command)} ) </dev/null`])).stdout.split('\n');
    const [dash, parent] = await parentOf(execWhenPlain("sh -c 'echo $PPID'"));
    expect(parent).toBe(dash);
    const [dash2, parent2] = await parentOf("sh -c 'echo $PPID'; :");
    expect(parent2).not.toBe(dash2);
  });
});
