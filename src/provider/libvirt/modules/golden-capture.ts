import { optionalNumber, type RawArgs, requireString } from '../../../modules/args.js';
import { stepBuilder } from '../../../modules/step-builder.js';
import type { Module, ModuleRun } from '../../../modules/types.js';
import { judgeShutdown } from '../windows/generalize-progress.js';
import { captureGoldenCommand } from '../windows/golden-cache.js';
import { parseDomState } from '../windows/install-progress.js';
import {
  type LibvirtCommon,
  parseCommon,
  poolDirectory,
  reason,
  recordedHere,
  resource,
  virsh,
} from './common.js';
import { deleteVolumeScript, destroyDomainScript } from './destroy.js';

/** libvirt_golden_capture's arguments (the plan's and the module's one type). */
export interface CaptureArgs extends LibvirtCommon {
  /** The generalized guest's domain. */
  domain: string;
  /** Its node name (the state's domain record names it). */
  node: string;
  /** Its system disk's volume (a volume of the cluster, in the pool). */
  disk: string;
  /** The golden volume to make (windows/golden-cache.ts). */
  golden: string;
  timeoutMinutes: number;
}

/** Seconds a state query may take (a busy libvirtd cannot hold a look past its limit). */
const VIRSH_QUERY_SEC = 10;
/** Seconds each look waits for a lifecycle event of the domain before looking again. */
export const LIFECYCLE_WINDOW_SEC = 15;
/** A progress line at least this often even when the state did not change. */
const REPORT_EVERY_MS = 60_000;

/**
 * One look: the domain state, then — unless it is shut off already — up to
 * LIFECYCLE_WINDOW_SEC seconds for its next lifecycle event (`virsh event --event lifecycle`:
 * the shutdown ends the wait at once, no fixed sleep).
 */
function lookScript(args: CaptureArgs): string {
  const state = `timeout ${VIRSH_QUERY_SEC} ${virsh(args.uri, 'domstate', '--reason', args.domain)} 2>&1`;
  const event = `timeout ${LIFECYCLE_WINDOW_SEC + 10} ${virsh(args.uri, 'event', '--domain', args.domain, '--event', 'lifecycle', '--timeout', String(LIFECYCLE_WINDOW_SEC))} >/dev/null 2>&1`;
  return [
    `s=$(${state})`,
    'printf "%s\\n" "$s"',
    `case "$s" in "shut off"*) ;; *) ${event} ;; esac`,
    'true',
  ].join('\n');
}

/**
 * `libvirt_golden_capture` (on the hypervisor of the first Windows guest, once its generalize
 * script has started sysprep): waits until sysprep has shut the domain off (progress lines; for
 * at most the Windows install time), captures its disk into the pool as the golden volume
 * (captureGoldenCommand: a hidden partial of the cluster, linked into place, never replacing a
 * golden volume another cluster made first) and refreshes the pool, then removes the installed
 * guest — domain and system disk — which create-hosts makes again as an overlay on the golden
 * volume like every other Windows guest. Fails, capturing nothing, when the domain stops any
 * other way or does not stop in time.
 */
export const libvirtGoldenCaptureModule: Module<CaptureArgs> = {
  name: 'libvirt_golden_capture',
  os: 'linux',
  parseArgs(raw: RawArgs) {
    const module = 'libvirt_golden_capture';
    const common = parseCommon(module, raw, ['domain', 'node', 'disk', 'golden', 'timeoutMinutes']);
    return {
      ...common,
      domain: requireString(module, raw, 'domain'),
      node: requireString(module, raw, 'node'),
      disk: requireString(module, raw, 'disk'),
      golden: requireString(module, raw, 'golden'),
      timeoutMinutes: optionalNumber(module, raw, 'timeoutMinutes', 0) ?? 45,
    };
  },
  *run(args, context): ModuleRun {
    const timeoutMs = args.timeoutMinutes * 60_000;
    let elapsedMs = 0;
    let reported = { text: '', atMs: Number.NEGATIVE_INFINITY };
    for (;;) {
      const look = yield {
        kind: 'exec',
        command: lookScript(args),
        timeoutMs: (LIFECYCLE_WINDOW_SEC + 30) * 1000,
      };
      elapsedMs += look.durationMs;
      const line = look.stdout.trim().split('\n')[0] ?? '';
      const error = line.startsWith('error:') ? line : undefined;
      const verdict = judgeShutdown({
        domain: args.domain,
        state: error ? undefined : parseDomState(line),
        ...(error ? { error } : {}),
        elapsedMs,
        timeoutMs,
      });
      if (verdict.status === 'failed') return { changed: false, failed: true, msg: verdict.message };
      if (verdict.status === 'off') break;
      const text = verdict.message.replace(/, \d+m\d\ds of \d+m\d\ds\)$/, ')');
      if (text !== reported.text || elapsedMs - reported.atMs >= REPORT_EVERY_MS) {
        yield { kind: 'progress', message: verdict.message };
        reported = { text, atMs: elapsedMs };
      }
    }

    const pool = yield* poolDirectory(args.uri, args.pool);
    if ('failed' in pool) return pool.failed;
    const poolPath = pool.path;
    yield { kind: 'progress', message: `capturing ${args.disk} as the golden volume ${args.golden}` };
    const captured = yield {
      kind: 'exec',
      command: `${captureGoldenCommand({ sourcePath: `${poolPath}/${args.disk}`, poolPath, volume: args.golden, cluster: args.cluster })}\n${virsh(args.uri, 'pool-refresh', args.pool)} >/dev/null`,
      // Copying a Windows disk takes minutes; it is bounded like the install.
      timeoutMs: Math.max(timeoutMs, 60_000),
    };
    if (captured.failed)
      return {
        changed: false,
        failed: true,
        msg: `cannot capture ${args.disk} as ${args.golden}: ${reason(captured)}`,
      };

    // The installed guest has served: create-hosts makes it again as an overlay (same names).
    const removed = yield {
      kind: 'exec',
      command: `${destroyDomainScript(args.uri, args.domain)}\n${deleteVolumeScript(args.uri, args.pool, args.disk)}`,
    };
    if (removed.failed)
      return {
        changed: true,
        failed: true,
        msg: `captured ${args.golden}, but cannot remove the installed guest ${args.domain}: ${reason(removed)}`,
      };
    // Recorded as gone with the details create-hosts recorded (the console log `down` keeps).
    const recorded = (kind: string, name: string, details: Record<string, string>) =>
      resource(
        context,
        kind,
        name,
        'deleted',
        recordedHere(context, kind).find((r) => r.name === name)?.details ?? details,
      );
    yield {
      kind: 'record',
      update: {
        resources: [
          recorded('domain', args.domain, { node: args.node }),
          recorded('volume', args.disk, { pool: args.pool }),
        ],
      },
    };
    return {
      changed: true,
      failed: false,
      msg: `${args.golden} captured from ${args.domain}; the installed guest is removed`,
      data: { golden: args.golden },
    };
  },
};

/** A libvirt_golden_capture plan step (`timeoutMinutes` may be left out). */
export const libvirtGoldenCaptureStep = stepBuilder(libvirtGoldenCaptureModule, ['timeoutMinutes']);
