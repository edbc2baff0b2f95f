import { type DomainState, minutes } from './install-progress.js';

/** What the capture step does next while sysprep generalizes the first Windows guest. */
export type ShutdownVerdict =
  | { status: 'waiting'; message: string }
  | { status: 'off'; message: string }
  | { status: 'failed'; message: string };

/**
 * Judges one look at the generalized guest's domain (`virsh domstate --reason`). sysprep's
 * `/shutdown` powers Windows off, which libvirt reports as `shut off (shutdown)`
 * (virDomainShutoffReason VIR_DOMAIN_SHUTOFF_SHUTDOWN, "normal shutdown"). Any other way of
 * stopping (crashed, failed, destroyed by someone) leaves a disk nobody should trust, and a
 * domain that never stops means sysprep refused or failed: both stop the run naming what was seen.
 */
export function judgeShutdown(look: {
  domain: string;
  state: DomainState | undefined;
  /** Why the state could not be read (virsh's message), when it could not. */
  error?: string;
  elapsedMs: number;
  timeoutMs: number;
}): ShutdownVerdict {
  const { state } = look;
  const clock = `${minutes(look.elapsedMs)} of ${minutes(look.timeoutMs)}`;
  if (state?.state === 'shut off') {
    if (state.reason === 'shutdown')
      return { status: 'off', message: `${look.domain} shut off after sysprep (${clock})` };
    return {
      status: 'failed',
      message: `${look.domain} is shut off (${state.reason ?? 'no reason given'}), not by sysprep's shutdown: its disk is not made the golden image`,
    };
  }
  // virsh: "error: failed to get domain '<name>'": it is gone, nothing will shut off.
  if (look.error?.includes('failed to get domain'))
    return { status: 'failed', message: `${look.domain} is gone before sysprep shut it off: ${look.error}` };
  if (state?.state === 'crashed')
    return { status: 'failed', message: `${look.domain} crashed while sysprep generalized it` };
  const seen = state
    ? `${state.state}${state.reason ? ` (${state.reason})` : ''}`
    : (look.error ?? 'no state');
  if (look.elapsedMs >= look.timeoutMs)
    return {
      status: 'failed',
      message: `${look.domain} did not shut off within ${minutes(look.timeoutMs)} after sysprep started (last seen: ${seen}); sysprep's errors are in C:\\Windows\\System32\\Sysprep\\Panther\\setuperr.log in the guest`,
    };
  return { status: 'waiting', message: `waiting for sysprep to shut ${look.domain} off (${seen}, ${clock})` };
}
