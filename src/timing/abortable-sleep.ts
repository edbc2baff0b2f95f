/**
 * Waits `ms`; stopping the run (the signal) ends the wait at once. Never rejects: the caller's
 * loop sees the aborted signal and stops. The abort listener goes when the timer fires, because
 * polling loops sleep many times on one signal.
 */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
