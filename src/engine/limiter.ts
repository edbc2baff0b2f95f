/**
 * A counting semaphore with a FIFO queue: at most `limit` holders at once, served in the order
 * they asked (so the first host of a task always starts before the others of that task).
 */
export class Limiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly limit: number) {}

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
