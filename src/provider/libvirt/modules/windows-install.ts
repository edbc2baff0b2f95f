import { optionalNumber, type RawArgs, rejectUnknown, requireString } from '../../../modules/args.js';
import { stepBuilder } from '../../../modules/step-builder.js';
import type { Module, ModuleRun } from '../../../modules/types.js';
import { shQuote } from '../../../quote/index.js';
import {
  countRebootEvents,
  type GuestAnswer,
  judgeInstall,
  parseAllocationBytes,
  parseDomState,
  WINDOWS_SETUP_KINDS,
  type WindowsSetupKind,
} from '../windows/install-progress.js';
import { virsh } from './common.js';

/** libvirt_windows_install's arguments (the plan's and the module's one type). */
export interface InstallArgs {
  uri: string;
  domain: string;
  /** The system disk's target (sda, vda): its allocation shows the install progressing. */
  disk: string;
  address: string;
  port: number;
  timeoutMinutes: number;
  /** `specialize` for an overlay on the golden image (its progress lines say so); default `install`. */
  setup: WindowsSetupKind;
}

/** Seconds each look waits for reboot events (and so the time between looks). */
export const EVENT_WINDOW_SEC = 15;
/**
 * Seconds a state or disk query may take: a busy libvirtd (the TCG guest saturating the cores) must
 * not hold a look past its exec limit; a query that times out is read as "nothing seen" this look.
 */
const VIRSH_QUERY_SEC = 10;
/** A progress line at least this often even when nothing but the time changed. */
const REPORT_EVERY_MS = 60_000;

/** Lines under `# name` headers. */
function sections(stdout: string): Record<string, string> {
  const found: Record<string, string> = {};
  let current = '';
  for (const line of stdout.split('\n')) {
    const header = /^# (\w+)$/.exec(line.trim());
    if (header) current = header[1]!;
    else if (current) found[current] = `${found[current] ?? ''}${line}\n`;
  }
  return found;
}

/**
 * One look from the hypervisor: the domain state (`virsh domstate --reason`), the system disk's
 * allocation (`virsh domblkinfo`), whether the guest's connection port accepts TCP (bash's
 * /dev/tcp, from the hypervisor, which reaches the guest network), and the reboot events of the
 * next EVENT_WINDOW_SEC seconds (`virsh event --event reboot --loop --timeout`).
 */
function lookScript(args: InstallArgs): string {
  return [
    `echo '# state'; timeout ${VIRSH_QUERY_SEC} ${virsh(args.uri, 'domstate', '--reason', args.domain)} 2>&1`,
    `echo '# disk'; timeout ${VIRSH_QUERY_SEC} ${virsh(args.uri, 'domblkinfo', args.domain, args.disk)} 2>/dev/null`,
    `echo '# port'; if timeout 3 bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ ${shQuote(args.address)} ${shQuote(String(args.port))} 2>/dev/null; then echo open; fi`,
    `echo '# events'; timeout ${EVENT_WINDOW_SEC + 10} ${virsh(args.uri, 'event', '--domain', args.domain, '--event', 'reboot', '--loop', '--timeout', String(EVENT_WINDOW_SEC))} 2>/dev/null`,
    'true',
  ].join('\n');
}

/**
 * `libvirt_windows_install` (run on the guest's hypervisor): waits while Windows Setup installs
 * the guest from the ISO (or, with `setup: specialize`, specializes an overlay on the golden
 * image), showing what it sees as progress lines (phase, domain state, reboots
 * seen, disk growth, time used of the time allowed), until the guest's connection port answers
 * (its first-logon script has enabled WinRM or sshd). Fails naming what it saw when the domain
 * stops, or when the time allowed (provider.windows.installTimeoutMinutes) runs out.
 */
export const libvirtWindowsInstallModule: Module<InstallArgs> = {
  name: 'libvirt_windows_install',
  os: 'linux',
  parseArgs(raw: RawArgs) {
    const module = 'libvirt_windows_install';
    rejectUnknown(module, raw, ['uri', 'domain', 'disk', 'address', 'port', 'timeoutMinutes', 'setup']);
    const port = Number(raw['port']);
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      throw new TypeError(`${module}: port must be a TCP port, got "${String(raw['port'])}"`);
    const setup = raw['setup'] ?? 'install';
    if (!WINDOWS_SETUP_KINDS.includes(setup as WindowsSetupKind))
      throw new TypeError(
        `${module}: setup must be one of ${WINDOWS_SETUP_KINDS.join(', ')}, got "${String(raw['setup'])}"`,
      );
    return {
      uri: requireString(module, raw, 'uri'),
      domain: requireString(module, raw, 'domain'),
      disk: requireString(module, raw, 'disk'),
      address: requireString(module, raw, 'address'),
      port,
      timeoutMinutes: optionalNumber(module, raw, 'timeoutMinutes', 1) ?? 45,
      setup: setup as WindowsSetupKind,
    };
  },
  *run(args): ModuleRun {
    const timeoutMs = args.timeoutMinutes * 60_000;
    let elapsedMs = 0;
    let reboots = 0;
    let reported = { text: '', atMs: Number.NEGATIVE_INFINITY };
    for (;;) {
      const look = yield {
        kind: 'exec',
        command: lookScript(args),
        timeoutMs: (EVENT_WINDOW_SEC + 30) * 1000,
      };
      elapsedMs += look.durationMs;
      const found = sections(look.stdout);
      reboots += countRebootEvents(found['events'] ?? '', args.domain);
      const diskBytes = parseAllocationBytes(found['disk'] ?? '');
      const guest: GuestAnswer = (found['port'] ?? '').includes('open')
        ? { kind: 'port-open' }
        : { kind: 'silent' };
      const verdict = judgeInstall({
        setup: args.setup,
        elapsedMs,
        timeoutMs,
        domain: parseDomState(found['state'] ?? ''),
        reboots,
        ...(diskBytes === undefined ? {} : { diskBytes }),
        guest,
      });
      const data = { elapsed: Math.round(elapsedMs / 1000), reboots };
      if (verdict.status === 'ready') return { changed: false, failed: false, msg: verdict.message, data };
      if (verdict.status === 'failed') return { changed: false, failed: true, msg: verdict.message, data };
      // Phase, state and reboots (not the clock or the disk): a new line when they change, else once a minute.
      const text = verdict.message
        .replace(/, disk [\d.]+ GiB/, '')
        .replace(/, \d+m\d\ds of \d+m\d\ds\)$/, ')');
      if (text !== reported.text || elapsedMs - reported.atMs >= REPORT_EVERY_MS) {
        yield { kind: 'progress', message: verdict.message };
        reported = { text, atMs: elapsedMs };
      }
    }
  },
};

/** A libvirt_windows_install plan step (`timeoutMinutes` and `setup` may be left out). */
export const libvirtWindowsInstallStep = stepBuilder(libvirtWindowsInstallModule, [
  'timeoutMinutes',
  'setup',
]);
