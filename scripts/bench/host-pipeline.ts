import type { RunEvent } from '../../src/types/events.js';

/** How long a build waited at the barrier between `first` and `then` (both run on every host). */
export interface HostPipeline {
  /** When `then` ended on its last host, ms after the run started. */
  actualMs: number;
  /**
   * When it would have ended had each host gone on to `then` as soon as it finished `first`
   * (each host's `then` taking what it took): the bound without the task barrier.
   */
  pipelinedMs: number;
  /** actual / pipelined: 1 when the barrier cost nothing. */
  ratio: number;
  /** Per host: when it finished `first`, and how long its `then` took. */
  hosts: Record<string, { readyMs: number; thenMs: number }>;
}

/**
 * #25 item 4 for a libvirt build: kubemix runs a task only when its needs are done on every host,
 * so a guest that boots early waits for the slowest before `prepare-linux` starts on it. From a
 * run's events: each host's end of `first` (wait-for-hosts) and the span of its steps in `then`
 * (prepare-linux), against when `then` really ended. Undefined when the run has no such tasks.
 */
export function hostPipeline(events: RunEvent[], first: string, then: string): HostPipeline | undefined {
  const start = events.find((e) => e.type === 'run-start');
  if (!start) return undefined;
  const t0 = Date.parse(start.time);
  const at = (e: RunEvent) => Date.parse(e.time) - t0;
  const ready = new Map<string, number>();
  const spans = new Map<string, { from: number; to: number }>();
  for (const e of events) {
    if (e.type !== 'step-start' && e.type !== 'step-end') continue;
    if (e.task === first && e.type === 'step-end') ready.set(e.host, Math.max(ready.get(e.host) ?? 0, at(e)));
    if (e.task === then) {
      const span = spans.get(e.host) ?? { from: at(e), to: at(e) };
      spans.set(e.host, { from: Math.min(span.from, at(e)), to: Math.max(span.to, at(e)) });
    }
  }
  const thenEnd = events.find((e) => e.type === 'task-end' && e.task === then);
  if (!thenEnd || spans.size === 0) return undefined;
  const hosts: HostPipeline['hosts'] = {};
  let pipelinedMs = 0;
  for (const [host, span] of spans) {
    const readyMs = ready.get(host) ?? 0;
    hosts[host] = { readyMs, thenMs: span.to - span.from };
    pipelinedMs = Math.max(pipelinedMs, readyMs + (span.to - span.from));
  }
  const actualMs = at(thenEnd);
  return { actualMs, pipelinedMs, ratio: actualMs / pipelinedMs, hosts };
}
