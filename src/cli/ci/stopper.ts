import { err } from '../output.js';

/**
 * When `kubemix ci` stops: the time budget or the first Ctrl-C / SIGTERM (a CI runner cancelling
 * the job) stops the build, and the teardown still runs. During the teardown a signal is only
 * noted, since stopping it would leave machines behind; a second one stops it too.
 */
export class CiStopper {
  /** Aborted when the build must stop. */
  readonly build = new AbortController();
  /** Aborted when the teardown must stop (a second signal during it). */
  readonly teardown = new AbortController();
  /** Why the build was stopped, if it was. */
  stoppedBy?: 'interrupted' | 'timed-out';
  private phase: 'build' | 'teardown' = 'build';
  private teardownSignals = 0;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(options: { timeoutMs?: number; timeoutText?: string }) {
    if (options.timeoutMs !== undefined) {
      this.timer = setTimeout(() => {
        if (this.phase !== 'build' || this.build.signal.aborted) return;
        err(
          `\nkubemix ci: the time budget (${options.timeoutText}) ran out: stopping the build; the teardown runs next`,
        );
        this.stoppedBy = 'timed-out';
        this.build.abort();
      }, options.timeoutMs);
    }
    process.on('SIGINT', this.onSignal);
    process.on('SIGTERM', this.onSignal);
  }

  private readonly onSignal = (signal: NodeJS.Signals) => {
    if (this.phase === 'build') {
      if (this.build.signal.aborted) return;
      err(`\nkubemix ci: ${signal}: stopping the build; the teardown runs next`);
      this.stoppedBy = 'interrupted';
      this.build.abort();
      return;
    }
    this.teardownSignals += 1;
    if (this.teardownSignals === 1) {
      err(
        `\nkubemix ci: ${signal} during the teardown: it goes on, or machines would be left behind. Send it again to stop the teardown anyway.`,
      );
      return;
    }
    err(`\nkubemix ci: ${signal} again: stopping the teardown; resources may be left behind`);
    this.teardown.abort();
  };

  /** The build is over: the budget no longer applies, signals now concern the teardown. */
  startTeardown(): void {
    this.phase = 'teardown';
    if (this.timer) clearTimeout(this.timer);
  }

  /** Stops listening for signals and the clock. */
  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
  }
}
