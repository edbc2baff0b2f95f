import { chmod, copyFile, mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { CommandResult } from '../../types/command-result.js';
import { failedResult, succeededResult } from '../../types/command-result.js';
import { LOCALHOST } from '../../types/localhost.js';
import type { ExecRequest, GetRequest, PutRequest, Transport } from '../types.js';

/** Runs commands as local processes (`/bin/sh -c`), for localhost tasks and tests. */
export class LocalTransport implements Transport {
  readonly kind = 'local' as const;
  constructor(readonly host = LOCALHOST.name) {}

  async connect(): Promise<void> {}

  async exec(request: ExecRequest): Promise<CommandResult> {
    const display = request.display ?? request.command;
    let file = '/bin/sh';
    let args = ['-c', request.command];
    if (request.become) {
      const user = typeof request.become === 'object' && request.become.user ? request.become.user : 'root';
      // -n: never prompt; a password prompt would hang an unattended run.
      args = ['-n', '-u', user, '--', file, ...args];
      file = 'sudo';
    }
    // execa loads on the first local command: a run over SSH alone never compiles it (#25: start-up).
    const { execa } = await import('execa');
    // A stop that came while execa loaded: an aborted signal never fires its listener again, so the
    // command would run on unkilled (a Ctrl-C right after START hung `kubemix run` in CI).
    if (request.signal?.aborted) return failedResult(display, 'cancelled', 0, this.host);
    const child = execa(file, args, {
      reject: false,
      all: false,
      stripFinalNewline: false,
      env: request.env,
      extendEnv: true,
      cwd: request.cwd,
      input: request.stdin ?? '',
      timeout: request.timeoutMs,
      cancelSignal: request.signal,
      forceKillAfterDelay: 2000,
      // Kill the whole process group so a timed-out `sh -c "sleep 100"` leaves nothing behind.
      detached: true,
      cleanup: true,
    });
    if (request.onOutput) {
      const onOutput = request.onOutput;
      child.stdout?.on('data', (data: Buffer) => onOutput({ stream: 'stdout', data: data.toString('utf8') }));
      child.stderr?.on('data', (data: Buffer) => onOutput({ stream: 'stderr', data: data.toString('utf8') }));
    }
    const killGroup = () => {
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    };
    const timer = request.timeoutMs === undefined ? undefined : setTimeout(killGroup, request.timeoutMs);
    request.signal?.addEventListener('abort', killGroup, { once: true });
    const outcome = await child;
    if (timer) clearTimeout(timer);
    request.signal?.removeEventListener('abort', killGroup);
    const result: CommandResult = {
      command: display,
      exitCode: outcome.exitCode ?? null,
      stdout: String(outcome.stdout ?? ''),
      stderr: String(outcome.stderr ?? ''),
      durationMs: Math.round(outcome.durationMs),
      failed: outcome.failed,
      timedOut: outcome.timedOut,
      host: this.host,
    };
    if (outcome.signal) result.signal = outcome.signal;
    if (outcome.failed && outcome.exitCode === undefined && !outcome.timedOut && !result.stderr) {
      result.stderr = outcome.isCanceled ? 'cancelled' : (outcome.shortMessage ?? 'command failed');
    }
    return result;
  }

  async put(request: PutRequest): Promise<CommandResult> {
    const started = Date.now();
    const command = `put ${request.localPath ?? '<content>'} -> ${request.remotePath}`;
    try {
      await mkdir(dirname(request.remotePath), { recursive: true });
      if (request.localPath !== undefined) await copyFile(request.localPath, request.remotePath);
      else
        await writeFile(
          request.remotePath,
          request.content ?? '',
          request.mode === undefined ? {} : { mode: request.mode },
        );
      if (request.mode !== undefined) await chmod(request.remotePath, request.mode);
      return succeededResult(command, Date.now() - started, this.host);
    } catch (error) {
      return failedResult(command, (error as Error).message, Date.now() - started, this.host);
    }
  }

  async get(request: GetRequest): Promise<CommandResult> {
    const started = Date.now();
    const command = `get ${request.remotePath} -> ${request.localPath}`;
    try {
      await mkdir(dirname(request.localPath), { recursive: true });
      await copyFile(request.remotePath, request.localPath);
      return succeededResult(command, Date.now() - started, this.host);
    } catch (error) {
      return failedResult(command, (error as Error).message, Date.now() - started, this.host);
    }
  }

  async close(): Promise<void> {}
}
