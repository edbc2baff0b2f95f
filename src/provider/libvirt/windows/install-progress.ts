/**
 * wait-for-hosts for a Windows guest: an unattended install takes ~15-20 min on KVM and far
 * longer under TCG, so the wait is long (45 min by default) and shows what it sees. The
 * provider polls the hypervisor and the guest; this file turns what it read into one progress
 * line and a verdict. Nothing here runs a command.
 */

/** Default time allowed for an unattended install, first logon included (spec provider.windows.installTimeoutMinutes). */
export { DEFAULT_WINDOWS_INSTALL_TIMEOUT_MINUTES } from '../../../spec/spec-defaults.js';

/** A domain state as `virsh domstate --reason` prints it: `running (booted)`, `shut off (destroyed)`. */
export interface DomainState {
  state: string;
  reason?: string;
}

/** Parses `virsh domstate --reason <domain>` (virsh-domain-monitor.c: `%s (%s)`). */
export function parseDomState(stdout: string): DomainState | undefined {
  const line = stdout.trim().split('\n')[0]?.trim();
  if (!line) return undefined;
  const match = /^(.*?)\s*\(([^()]*)\)$/.exec(line);
  return match ? { state: match[1]!, reason: match[2]! } : { state: line };
}

/**
 * Counts the guest resets of `domain` in `virsh event --domain <d> --event reboot --loop`
 * output. virsh prints `event 'reboot' for domain '<name>'` per reset, optionally after a
 * `--timestamp` prefix; libvirt before 8.x printed the name without quotes
 * (tools/virsh-domain-event.c, virshEventGenericPrint).
 */
export function countRebootEvents(stdout: string, domain: string): number {
  return stdout
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => {
      const at = line.indexOf("event 'reboot' for domain ");
      if (at < 0) return false;
      const name = line.slice(at + "event 'reboot' for domain ".length);
      return name === `'${domain}'` || name === domain;
    }).length;
}

/** Parses `virsh domblkinfo <domain> <target>`: the Allocation line, in bytes. */
export function parseAllocationBytes(stdout: string): number | undefined {
  const match = /^Allocation:\s+(\d+)\s*$/m.exec(stdout);
  return match ? Number(match[1]) : undefined;
}

/** What the guest itself said, if anything (over WinRM or SSH with the generated credentials). */
export type GuestAnswer =
  | { kind: 'silent' }
  /** Its connection port (WinRM or SSH) accepts TCP: the first-logon script has got that far. */
  | { kind: 'port-open' }
  | { kind: 'logged-in' }
  | { kind: 'first-logon-done' }
  | { kind: 'first-logon-failed'; message: string };

/**
 * What Windows Setup runs in the guest: `install` from the ISO (windowsPE, specialize,
 * oobeSystem), or `specialize` for an overlay on the golden image, whose generalized disk runs
 * only specialize and oobeSystem (from the overlay's answer file).
 */
export type WindowsSetupKind = 'install' | 'specialize';
export const WINDOWS_SETUP_KINDS: readonly WindowsSetupKind[] = ['install', 'specialize'];

/** One look at an installing guest. */
export interface InstallObservation {
  /** Default `install`. */
  setup?: WindowsSetupKind;
  elapsedMs: number;
  timeoutMs: number;
  domain: DomainState | undefined;
  /** Resets seen since the domain was started (sum of countRebootEvents over the polls). */
  reboots: number;
  /** Bytes the guest's disk occupies on the hypervisor, when known. */
  diskBytes?: number;
  guest: GuestAnswer;
}

/** What wait-for-hosts does next. */
export type InstallVerdict =
  | { status: 'waiting'; message: string }
  | { status: 'ready'; message: string }
  | { status: 'failed'; message: string };

/** `12m05s`. */
export const minutes = (ms: number) =>
  `${Math.floor(ms / 60_000)}m${String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0')}s`;
const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(1)} GiB`;

// What a reboot count means for a fresh install from the ISO (Windows Setup: windowsPE applies
// the image and reboots; the specialize pass runs and reboots; then oobeSystem and the first logon).
// An overlay boots the generalized golden disk: "the specialize configuration pass runs
// immediately after the next time the computer boots" (Microsoft Learn, "generalize"
// configuration pass), then oobeSystem and the first logon. Whether Windows restarts between the
// two there is not verified (no Windows here): a reboot seen only says specialize is past.
function phase(observation: InstallObservation): string {
  if (observation.guest.kind === 'logged-in' || observation.guest.kind === 'port-open')
    return 'first logon script running';
  if (observation.setup === 'specialize')
    return observation.reboots === 0
      ? 'Windows specialize from the golden image'
      : 'Windows out-of-box experience and first logon, after specialize from the golden image';
  if (observation.reboots === 0) return 'Windows Setup copying the image';
  if (observation.reboots === 1) return 'Windows Setup: specialize';
  return 'Windows Setup: out-of-box experience and first logon';
}

/**
 * The progress line and verdict for one observation. Ready once the guest reports its first
 * logon done; failed when the first-logon script failed, the domain is no longer running
 * (shut off, crashed, paused on an error) or the time is up — each naming what was seen.
 */
export function judgeInstall(observation: InstallObservation): InstallVerdict {
  const { domain, guest } = observation;
  const seen = [
    `domain ${domain === undefined ? 'state unknown' : domain.reason ? `${domain.state} (${domain.reason})` : domain.state}`,
    `${observation.reboots} reboot${observation.reboots === 1 ? '' : 's'} seen`,
    ...(observation.diskBytes === undefined ? [] : [`disk ${gib(observation.diskBytes)}`]),
    `${minutes(observation.elapsedMs)} of ${minutes(observation.timeoutMs)}`,
  ].join(', ');
  const setup =
    observation.setup === 'specialize' ? 'Windows specialize from the golden image' : 'the Windows install';
  if (guest.kind === 'first-logon-done') return { status: 'ready', message: `Windows ready (${seen})` };
  if (guest.kind === 'port-open')
    return { status: 'ready', message: `Windows answers on its connection port (${seen})` };
  if (guest.kind === 'first-logon-failed')
    return { status: 'failed', message: `the first-logon script failed: ${guest.message.trim()} (${seen})` };
  if (domain !== undefined && domain.state !== 'running')
    return { status: 'failed', message: `the guest stopped during ${setup} (${seen})` };
  if (observation.elapsedMs >= observation.timeoutMs)
    return {
      status: 'failed',
      message: `${setup} did not finish in time: ${phase(observation)} (${seen}); raise provider.windows.installTimeoutMinutes for slow hypervisors (TCG)`,
    };
  return { status: 'waiting', message: `${phase(observation)} (${seen})` };
}
