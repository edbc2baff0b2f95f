import type { ModuleOutcome, ModuleRun } from './types.js';

/** A module run that needs no action on the host: it finishes at once with `outcome`. */
// biome-ignore lint/correctness/useYield: the module contract is a generator even when nothing runs.
export function* immediate(outcome: ModuleOutcome): ModuleRun {
  return outcome;
}
