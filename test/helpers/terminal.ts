import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { pollUntil } from '../../scripts/lab/poll.js';
import { testTempDir } from './temp.js';

/** How a program in a {@link Terminal} ended: its exit status, or the signal that killed it. */
export interface TerminalExit {
  status?: number;
  signal?: number;
}

/** A program running in a real pseudo-terminal (a tmux pane), as a user at a terminal runs it. */
export interface Terminal {
  /** Everything the pane has shown, scrollback included, as plain text. */
  screen(): Promise<string>;
  /** Reads the screen until `pattern` shows (fails after `ms`); returns that screen. */
  waitForScreen(pattern: RegExp, ms?: number): Promise<string>;
  /** Types a key as tmux names it (`C-c` is Ctrl-C): the terminal turns it into what a keyboard sends. */
  press(key: string): Promise<void>;
  /** Waits for the program to end (fails after `ms`). */
  exit(ms?: number): Promise<TerminalExit>;
  /** Stops the terminal: its tmux server, and the program if it still runs. */
  close(): Promise<void>;
}

const POLL_MS = 50;

/**
 * Runs the program (argv after the exit file) on the terminal and writes how it ended to the exit
 * file: `{"status": N}` or `{"signal": N}`. tmux 3.3a's own `pane_dead_status` is sometimes never
 * filled in for a pane whose program has ended, so the test cannot rely on it. Ctrl-C reaches the
 * program as from a keyboard (the terminal signals its whole foreground process group); this
 * parent only notes it, so it outlives the program to report.
 */
const REPORT_EXIT = `
const { spawn } = require('node:child_process');
const { constants } = require('node:os');
const { writeFileSync } = require('node:fs');
const [file, command, ...args] = process.argv.slice(1);
process.on('SIGINT', () => undefined);
const child = spawn(command, args, { stdio: 'inherit' });
child.on('exit', (code, signal) => {
  writeFileSync(file, JSON.stringify(signal ? { signal: constants.signals[signal] } : { status: code }));
});
`;

/**
 * Starts `command` in a detached tmux pane of its own tmux server (a socket in a temporary
 * directory), so a test sees what a terminal user sees and can press Ctrl-C. The pane stays
 * after the program ends (remain-on-exit) so its exit status and last screen can be read.
 * `CI` is removed from the program's environment: kubemix draws its live task list only outside CI.
 */
export async function openTerminal(options: {
  command: string[];
  cwd: string;
  env?: Record<string, string>;
}): Promise<Terminal> {
  const dir = await testTempDir('tty');
  const config = join(dir, 'tmux.conf');
  // Set in the server's configuration, read before the pane starts: a program that ends at once
  // still leaves its pane (and exit status) behind.
  await writeFile(config, 'set -g remain-on-exit on\nset -g history-limit 10000\n');
  const socket = join(dir, 'tmux.sock');
  const exitFile = join(dir, 'exit.json');
  const tmux = (...args: string[]) => execa('tmux', ['-S', socket, ...args]);
  const assignments = Object.entries(options.env ?? {}).map(([key, value]) => `${key}=${value}`);
  await execa('tmux', [
    '-S',
    socket,
    '-f',
    config,
    'new-session',
    '-d',
    '-x',
    '160',
    '-y',
    '50',
    '-c',
    options.cwd,
    'env',
    '-u',
    'CI',
    ...assignments,
    'node',
    '-e',
    REPORT_EXIT,
    '--',
    exitFile,
    ...options.command,
  ]);

  const screen = async () => (await tmux('capture-pane', '-p', '-J', '-S', '-')).stdout;
  const poll = async <T>(read: () => Promise<T | undefined>, ms: number, what: () => Promise<string>) => {
    let found: T | undefined;
    const seen = async () => {
      found = await read();
      return found !== undefined;
    };
    if (!(await pollUntil(seen, { timeoutMs: ms, intervalMs: POLL_MS })) || found === undefined)
      throw new Error(`timed out after ${ms} ms waiting for ${await what()}`);
    return found;
  };
  const shown = async () => `\n--- the terminal shows ---\n${await screen()}`;

  return {
    screen,
    waitForScreen: (pattern, ms = 30_000) =>
      poll(
        async () => {
          const text = await screen();
          return pattern.test(text) ? text : undefined;
        },
        ms,
        async () => `${pattern}${await shown()}`,
      ),
    press: async (key) => {
      await tmux('send-keys', key);
    },
    exit: (ms = 30_000) =>
      poll(
        async () => {
          try {
            return JSON.parse(await readFile(exitFile, 'utf8')) as TerminalExit;
          } catch {
            return undefined;
          }
        },
        ms,
        async () => `the program to end${await shown()}`,
      ),
    close: async () => {
      await execa('tmux', ['-S', socket, 'kill-server'], { reject: false });
    },
  };
}
