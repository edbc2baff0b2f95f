import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testTempDir } from '../helpers/temp.js';
import { openTerminal } from '../helpers/terminal.js';
import { cliPath, repoRoot, runCli, tempHome } from './run-cli.js';

// kubemix as a user at a terminal runs it: in a real pseudo-terminal (a tmux pane), where it draws
// the live task list (listr2) instead of plain lines, and where Ctrl-C is a key press.

/** `kubemix ARGS` in a terminal of its own. */
const inTerminal = (args: string[], env: Record<string, string> = {}) =>
  openTerminal({ command: ['node', cliPath, ...args], cwd: repoRoot, env });

/** The events of a cluster directory's newest run log. */
async function lastRunEvents(clusterDir: string): Promise<{ type: string; status?: string }[]> {
  const runs = (await readdir(join(clusterDir, 'runs'))).sort();
  const text = await readFile(join(clusterDir, 'runs', runs.at(-1)!), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; status?: string });
}

// A task the list shows running: its bare name (a task still waiting has "(waiting)" after it).
const running = (task: string) => new RegExp(`\\s${task}$`, 'm');

describe('kubemix up on a terminal', () => {
  // The node's SSH port refuses connections: wait-for-hosts waits for it until Ctrl-C.
  const spec = 'fixtures/cli/unreachable-static.yaml';

  it('Ctrl-C during a task: exits 130 saying so, records the run as interrupted, releases the lock; the next up resumes', async () => {
    const home = tempHome();
    const clusterDir = join(home, 'clusters', 'unreachable');
    const first = await inTerminal(['up', spec], { KUBEMIX_HOME: home });
    try {
      await first.waitForScreen(running('wait-for-hosts'));
      await first.press('C-c');
      expect(await first.exit()).toEqual({ status: 130 });
      expect(await first.screen()).toContain('interrupted: stopping running steps and recording state');
    } finally {
      await first.close();
    }
    expect(existsSync(join(clusterDir, 'lock'))).toBe(false);
    const status = await runCli(['status', spec], { home });
    expect(status.stdout).toMatch(/^last run: interrupted/m);
    expect(status.stdout).toMatch(/prepare-provider\s+done/);
    const events = await lastRunEvents(clusterDir);
    expect(events.at(-1)).toMatchObject({ type: 'run-end', status: 'interrupted' });

    // The same command again goes on from there: what was done stays done.
    const second = await inTerminal(['up', spec], { KUBEMIX_HOME: home });
    try {
      await second.waitForScreen(/prepare-provider: done in an earlier run/);
      await second.waitForScreen(running('wait-for-hosts'));
      await second.press('C-c');
      expect(await second.exit()).toEqual({ status: 130 });
    } finally {
      await second.close();
    }
    expect(existsSync(join(clusterDir, 'lock'))).toBe(false);
    expect((await lastRunEvents(clusterDir)).at(-1)).toMatchObject({
      type: 'run-end',
      status: 'interrupted',
    });
  });
});

describe('kubemix run on a terminal', () => {
  it('Ctrl-C during a task: stops it, says so and prints the recap instead of dying on the signal', async () => {
    const home = tempHome();
    const terminal = await inTerminal(
      [
        'run',
        'fixtures/playbooks/wait-for-file.yml',
        '-i',
        'fixtures/inventories/local.yml',
        '-e',
        `wait_path=${join(home, 'never-written')}`,
      ],
      { KUBEMIX_HOME: home },
    );
    try {
      await terminal.waitForScreen(running('Wait for the file'));
      await terminal.press('C-c');
      // The exit code itself is the exit-code table's (issue 21 item 14): here, only that kubemix chose it.
      expect((await terminal.exit()).signal).toBeUndefined();
      const screen = await terminal.screen();
      expect(screen).toContain('interrupted: stopping running steps and recording state');
      expect(screen).toMatch(/web1\s+: ok=0 .* failed=1 /);
    } finally {
      await terminal.close();
    }
  });

  it('shows a task whose `when` is false on every host as skipped, not as done, and counts the skips of the others', async () => {
    const terminal = await inTerminal(
      ['run', 'fixtures/playbooks/when-false.yml', '-i', 'fixtures/inventories/local.yml'],
      { KUBEMIX_HOME: tempHome() },
    );
    try {
      expect(await terminal.exit()).toEqual({ status: 0 });
      const screen = await terminal.screen();
      expect(screen).toMatch(
        /Import the images from the artifacts directory \(offline\): skipped on (web1|web2|db1), (web1|web2|db1), (web1|web2|db1)$/m,
      );
      expect(screen).not.toMatch(/✔ Import the images/);
      expect(screen).toMatch(/✔ Only on web1 \[\d+\.\ds; 2 skipped\]/);
    } finally {
      await terminal.close();
    }
  });
  it('-vv: each step result and command appear under the row of its own task, not above the list', async () => {
    const dir = await testTempDir('terminal-verbose');
    await writeFile(join(dir, 'inventory.yml'), 'all:\n  hosts:\n    h1: { ansible_connection: local }\n');
    await writeFile(
      join(dir, 'play.yml'),
      '- hosts: h1\n  tasks:\n    - name: greet\n      command: echo hello-from-h1\n    - name: second\n      command: echo second-line\n',
    );
    const terminal = await inTerminal(
      ['run', join(dir, 'play.yml'), '-i', join(dir, 'inventory.yml'), '-vv'],
      { KUBEMIX_HOME: tempHome() },
    );
    try {
      expect(await terminal.exit()).toEqual({ status: 0 });
      const screen = await terminal.screen();
      // Row, then its lines (listr2's output bar: `›` before the first), then the next row.
      expect(screen).toMatch(
        /^✔ greet \[[\d.]+s\]\n +› h1 greet: changed, exit code 0\n +ran: echo hello-from-h1\n +stdout\| hello-from-h1\n✔ second /m,
      );
      expect(screen).toMatch(
        /^✔ second \[[\d.]+s\]\n +› h1 second: changed, exit code 0\n +ran: echo second-line$/m,
      );
    } finally {
      await terminal.close();
    }
  });
});
