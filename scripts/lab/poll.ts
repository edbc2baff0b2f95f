/**
 * The one poll loop of the tests, fixtures and lab scripts: readiness of a starting server, a
 * process that should exit, a guest register that should change. Each caller keeps its own error
 * (it knows what it waited for); the loop only answers whether the condition came true in time.
 */

/** How long to poll, and how often. */
export interface PollOptions {
  /** Gives up after this long (the check runs at least once). */
  timeoutMs: number;
  /** Pause between two checks (default 100 ms). */
  intervalMs?: number;
}

/**
 * Calls `check` until it returns true (then resolves true) or `timeoutMs` has passed (false).
 * A check that throws ends the poll with its error: a server that exited will never answer.
 */
export async function pollUntil(
  check: () => boolean | Promise<boolean>,
  { timeoutMs, intervalMs = 100 }: PollOptions,
): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
