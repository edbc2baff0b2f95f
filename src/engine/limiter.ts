/**
 * A counting semaphore with a FIFO queue: at most `limit` holders at once, served in the order
 * they asked (so the first host of a task always starts before the others of that task).
 */
export class Limiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  /** At least one holder: a limit of 0 (a library caller's forks) would make every acquire() wait forever. */
  readonly limit: number;

  constructor(limit: number) {
    this.limit = Math.max(1, limit);
  }

  /** Waits for a slot; the returned function gives it back (call it exactly once). */
  async acquire(): Promise<() => void> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // Hand the slot straight to the next waiter, so `active` never dips and a newcomer cannot jump the queue.
      if (next) next();
      else this.active -= 1;
    };
  }
}

/**
 * Runs `work` for every host, each inside a slot of `limiter`: how both `kubemix up` (a task's
 * hosts) and `kubemix run` (a playbook task's targets) share out their forks. acquire() is called
 * in host order and the limiter is FIFO, so hosts start in order: the first host (which runs the
 * run_once work the others may wait for) always gets a slot before them, and waiting cannot
 * deadlock. Resolves with the results in host order.
 */
export function inSlots<H, R>(
  hosts: readonly H[],
  limiter: Limiter,
  work: (host: H, index: number) => Promise<R>,
): Promise<R[]> {
  return Promise.all(
    hosts.map(async (host, index) => {
      const release = await limiter.acquire();
      try {
        return await work(host, index);
      } finally {
        release();
      }
    }),
  );
}
