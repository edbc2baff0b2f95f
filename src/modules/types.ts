import type { CommandResult } from '../types/command-result.js';
import type { HostOs, InventoryHost } from '../types/inventory.js';
import type { ModuleOutcome } from '../types/module-outcome.js';
import type { ProvisionLedger, ProvisionUpdate } from '../types/provision.js';

export type { ModuleOutcome } from '../types/module-outcome.js';

/**
 * What a module asks the executor to do. Modules never touch a connection: they yield actions
 * and read back results (pyinfra's habit), so their tests need no network.
 */
export type ModuleAction =
  /** Run a command line in the host's shell (sh on Linux, PowerShell on Windows transports). */
  | {
      kind: 'exec';
      command: string;
      /** Shown instead of `command` (hide secrets). */
      display?: string;
      stdin?: string;
      env?: Record<string, string>;
      cwd?: string;
      become?: boolean | { user?: string };
      timeoutMs?: number;
    }
  /** Place a file on the host. */
  | { kind: 'put'; remotePath: string; content?: string | Buffer; localPath?: string; mode?: number }
  /** Fetch a file from the host. */
  | { kind: 'get'; remotePath: string; localPath: string }
  /**
   * Drop the connection and connect again, retrying with backoff until `timeoutMs`.
   * Used by reboot and wait_for_connection. The result has failed=true when time ran out.
   */
  | { kind: 'reconnect'; timeoutMs: number; initialDelayMs?: number; expectLoss?: boolean }
  /** Wait, without a command (polling loops). */
  | { kind: 'sleep'; ms: number }
  /**
   * Write provider records (resources, host assignments) to the state and wait until they are on
   * disk: providers record their intent before each create call. Fails where there is no ledger
   * (outside `kubemix up` / `down`).
   */
  | { kind: 'record'; update: ProvisionUpdate }
  /**
   * Run in-process provider work the executor cannot express as commands on a host: API calls
   * (EC2 through the AWS SDK). The function reports its own outcome through the module (it
   * should not throw: a throw fails the action with its message); `progress` lines are the
   * step's output.
   */
  | { kind: 'call'; what: string; run: (io: CallIo) => Promise<void> }
  /**
   * Tell the user what a long wait sees (one line; the engine emits a redacted `step-progress`
   * event, shown under the task). Runs nothing; never fails.
   */
  | { kind: 'progress'; message: string };

/** What a `call` action's function may use. */
export interface CallIo {
  signal?: AbortSignal;
  ledger?: ProvisionLedger;
  progress(line: string): void;
}

/** What a module can see: the target host and the variables of the run. No connections. */
export interface ModuleContext {
  host: InventoryHost;
  os: HostOs;
  vars: Record<string, unknown>;
  /** --check: modules that change things yield nothing and report what they would do. */
  checkMode: boolean;
  /** The state's provider records (provider modules read what earlier runs made). */
  ledger?: ProvisionLedger;
}

/**
 * A module run: a generator that yields actions and receives each action's result.
 * Its return value is the outcome.
 */
export type ModuleRun = Generator<ModuleAction, ModuleOutcome, CommandResult>;

/** A task module: arguments in, actions out. */
export interface Module<Args = Record<string, unknown>> {
  name: string;
  /** Hosts it works on. */
  os: HostOs | 'any';
  /** Validates raw arguments; throws a TypeError naming the bad argument (programmer/playbook mistake). */
  parseArgs(raw: Record<string, unknown>): Args;
  run(args: Args, context: ModuleContext): ModuleRun;
}
