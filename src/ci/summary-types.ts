/**
 * The machine-readable record of one `kubemix ci` run (`summary.json`): the JUnit file, the HTML
 * report and the history are all rendered from it. Plain data, no secrets (already redacted).
 */

/** Identifies the summary layout; bump the suffix when it changes incompatibly. */
export const SUMMARY_FORMAT = 'kubemix-ci-summary/v1';

/** The four phases of a CI run, in order (the JUnit test suites). */
export const PHASES = ['provision', 'build', 'verify', 'teardown'] as const;
export type Phase = (typeof PHASES)[number];

/** How one unit (task on a host, a check) ended, in JUnit's terms. */
export type UnitStatus = 'passed' | 'failed' | 'error' | 'skipped';

/** How the whole run ended. */
export type CiOutcome = 'passed' | 'failed' | 'timed-out' | 'interrupted' | 'teardown-failed';

/** What failed, where, and what ran: the excerpt JUnit, the report and the terminal show. */
export interface FailureExcerpt {
  phase: Phase;
  task: string;
  host: string;
  step: string;
  /** What ran (already redacted), or `connect <host>`. */
  command: string;
  exitCode: number | null;
  /** failed: the command failed; unreachable: no connection; interrupted / timed-out: stopped by kubemix ci. */
  kind: 'failed' | 'unreachable' | 'interrupted' | 'timed-out';
  /** One line: how it ended. */
  message: string;
  /** The last lines of the step's output (stderr, then stdout). */
  outputTail: string;
}

/** One task on one host. Times are milliseconds since the run started. */
export interface HostResult {
  host: string;
  status: UnitStatus;
  /** Why it was skipped or stopped. */
  reason?: string;
  startMs?: number;
  endMs?: number;
  durationMs: number;
  /** A step failed and passed on a retry. */
  retried: boolean;
  failure?: FailureExcerpt;
}

/** One task of the build or the teardown. */
export interface TaskResult {
  name: string;
  phase: Phase;
  status: UnitStatus;
  reason?: string;
  needs: string[];
  startMs?: number;
  endMs?: number;
  durationMs: number;
  /** When everything it needs was done (or its run started). */
  readyMs?: number;
  /** From ready to started: forks, a run lock, or the engine stopping after a failure. */
  waitMs: number;
  onCriticalPath: boolean;
  /** A step failed and passed on a retry, on some host. */
  retried: boolean;
  hosts: HostResult[];
}

/** One verify check (the Kubernetes Windows guide's validation). */
export interface CheckSummary {
  check: string;
  status: UnitStatus;
  detail: string;
  command: string;
  durationMs: number;
}

/** What `summary.json` holds. */
export interface CiSummary {
  format: typeof SUMMARY_FORMAT;
  cluster: string;
  /** The spec file (or short form) the run was given. */
  spec: string;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  outcome: CiOutcome;
  exitCode: number;
  /** One line saying why the run did not pass. */
  message?: string;
  phases: Record<Phase, { status: UnitStatus; durationMs: number; startMs?: number; endMs?: number }>;
  tasks: TaskResult[];
  failures: FailureExcerpt[];
  criticalPath: { tasks: string[]; durationMs: number };
  verify: { ran: boolean; checks: CheckSummary[] };
  teardown: {
    status: 'passed' | 'failed' | 'kept' | 'interrupted';
    message: string;
  };
  secretScan: { filesScanned: number; findings: SecretFinding[] };
  /** kubemix, Node.js and every pinned version the build used. */
  versions: Record<string, string>;
  hosts: { name: string; os: string; role: string; windowsVersion?: string }[];
  /** Time the CI reporting itself took (event recording, artifacts, scan, report). */
  timings: { reportingMs: number };
}

/** A secret the scan found (and redacted): where and what kind, never the value. */
export interface SecretFinding {
  /** Path relative to the out directory. */
  file: string;
  line: number;
  kind: string;
}
