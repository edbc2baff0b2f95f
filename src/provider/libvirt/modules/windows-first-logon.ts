import { optionalNumber, type RawArgs, rejectUnknown } from '../../../modules/args.js';
import { stepBuilder } from '../../../modules/step-builder.js';
import type { Module, ModuleRun } from '../../../modules/types.js';
import { psQuote } from '../../../quote/index.js';
import { FIRST_LOGON_DONE_MARKER, FIRST_LOGON_FAILED_MARKER } from '../windows/first-logon-script.js';

/** Seconds between looks at the markers. */
const POLL_SEC = 10;

/** Prints `done`, `failed` and the failure, or `running` (the markers the first-logon script writes). */
const MARKER_SCRIPT = [
  `if (Test-Path -LiteralPath ${psQuote(FIRST_LOGON_DONE_MARKER)}) { 'done' }`,
  `elseif (Test-Path -LiteralPath ${psQuote(FIRST_LOGON_FAILED_MARKER)}) { 'failed'; Get-Content -LiteralPath ${psQuote(FIRST_LOGON_FAILED_MARKER)} -Raw }`,
  "else { 'running' }",
].join('\n');

/**
 * `windows_first_logon` (on a Windows guest kubemix installed): waits until the first-logon
 * script (provider/libvirt/windows/first-logon-script.ts) has left its done marker; fails with the
 * error it recorded in its failed marker, or when the time allowed runs out.
 */
export const windowsFirstLogonModule: Module<{ timeoutMinutes: number }> = {
  name: 'windows_first_logon',
  os: 'windows',
  parseArgs(raw: RawArgs) {
    rejectUnknown('windows_first_logon', raw, ['timeoutMinutes']);
    return { timeoutMinutes: optionalNumber('windows_first_logon', raw, 'timeoutMinutes', 1) ?? 45 };
  },
  *run(args): ModuleRun {
    const limitMs = args.timeoutMinutes * 60_000;
    let elapsedMs = 0;
    for (;;) {
      const look = yield { kind: 'exec', command: MARKER_SCRIPT, timeoutMs: 60_000 };
      elapsedMs += look.durationMs;
      const [state, ...rest] = look.stdout.trim().split(/\r?\n/);
      if (!look.failed && state === 'done') return { changed: false, failed: false };
      if (!look.failed && state === 'failed')
        return {
          changed: false,
          failed: true,
          msg: `the first-logon script failed: ${rest.join(' ').trim() || '(no message)'}`,
        };
      if (elapsedMs >= limitMs)
        return {
          changed: false,
          failed: true,
          msg: `the first-logon script did not finish within ${args.timeoutMinutes} min${look.failed ? `; last look failed: ${look.stderr.trim()}` : ''}`,
        };
      yield { kind: 'progress', message: `first-logon script running (${Math.round(elapsedMs / 1000)} s)` };
      const slept = yield { kind: 'sleep', ms: POLL_SEC * 1000 };
      elapsedMs += Math.max(slept.durationMs, 1);
    }
  },
};

/** A windows_first_logon plan step (`timeoutMinutes` may be left out). */
export const windowsFirstLogonStep = stepBuilder(windowsFirstLogonModule, ['timeoutMinutes']);
