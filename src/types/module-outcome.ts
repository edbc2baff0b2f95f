import type { CommandResult } from './command-result.js';

/** What a module reports when it finishes. */
export interface ModuleOutcome {
  changed: boolean;
  failed: boolean;
  /**
   * Nothing ran: the step's `when` was false (or a loop had no item to run), Ansible's
   * `skipped`. Reported as a skipped step, never as ok.
   */
  skipped?: boolean;
  /** Short message for people (shown on failure, and by debug/assert). */
  msg?: string;
  /** Module-specific data, available to `register`. */
  data?: Record<string, unknown>;
  /** True when the host must be rebooted (win_feature, ...). */
  rebootRequired?: boolean;
  /** Facts to set on the host (set_fact). */
  facts?: Record<string, unknown>;
  /**
   * The failure is the user's input (a wrong digest, a name already in use): `kubemix` exits 2,
   * as for a bad spec, instead of 1.
   */
  inputError?: boolean;
}

/** The outcome of a module plus every command result it produced (last one first for errors). */
export interface ModuleRunResult extends ModuleOutcome {
  results: CommandResult[];
}
