/**
 * Ansible's `throttle` for one task (or one plan step): how many hosts may run it at once
 * ("Restricting execution with throttle",
 * https://docs.ansible.com/ansible/latest/playbook_guide/playbooks_strategies.html: it limits the
 * workers of a task and can lower, never raise, forks). Every host asks with its own limit,
 * because Ansible templates `throttle` per host; a host starts while fewer than its limit run
 * the step, in the order the hosts asked. Ansible's free strategy counts the running workers of
 * the same task the same way (ansible/ansible lib/ansible/plugins/strategy/free.py,
 * `same_tasks >= throttle`; strategy/__init__.py ignores it with run_once).
 */
export class Throttle {
  private active = 0;
  private readonly waiting: Array<{ limit: number; start: () => void }> = [];

  /**
   * Waits until fewer than `limit` holders run, then holds a place; the returned function gives
   * it back (call it once). A limit of 0 or less means no limit, as in Ansible.
   */
  async acquire(limit: number): Promise<() => void> {
    if (limit <= 0) return () => undefined;
    if (this.waiting.length > 0 || this.active >= limit)
      await new Promise<void>((start) => this.waiting.push({ limit, start }));
    else this.active += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active -= 1;
      this.admit();
    };
  }

  /** Starts waiters in order while the first one's limit allows it. */
  private admit(): void {
    for (let next = this.waiting[0]; next && this.active < next.limit; next = this.waiting[0]) {
      this.waiting.shift();
      this.active += 1;
      next.start();
    }
  }
}

/** One {@link Throttle} per step of a task, shared by the task's hosts. */
export class StepThrottles {
  private readonly byStep = new Map<number, Throttle>();

  /** The throttle of the step at `index`. */
  of(index: number): Throttle {
    let throttle = this.byStep.get(index);
    if (!throttle) {
      throttle = new Throttle();
      this.byStep.set(index, throttle);
    }
    return throttle;
  }
}

/** Ansible's error when `throttle` does not render to an integer (strategy/__init__.py). */
export const THROTTLE_NOT_INTEGER = 'Failed to convert the throttle value to an integer.';

/** A rendered throttle value as Ansible reads it (`int(...)`), or undefined when it is not an integer. */
export function throttleValue(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? value : undefined;
  if (typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value)) return Number(value);
  return undefined;
}
