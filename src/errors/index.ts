/**
 * Typed errors. Only the CLI turns them into exit codes and one-line messages;
 * everything else throws or returns them.
 */
import { EXIT } from './exit-codes.js';

export { EXIT, EXIT_CODES, type ExitCodeName } from './exit-codes.js';

/** Base class: every error kubemix expects carries an exit code and a one-line message. */
export class KubemixError extends Error {
  /** Process exit code the CLI uses for this error. */
  readonly exitCode: number;
  constructor(message: string, options: { exitCode?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.exitCode = options.exitCode ?? EXIT.failed;
  }
}

/** One problem found in a spec, located by file, YAML path and line:column. */
export interface SpecIssue {
  file: string;
  /** Dot path in the spec, e.g. `nodes.workers.0.count`. Empty for the document itself. */
  path: string;
  line?: number;
  column?: number;
  message: string;
}

/** Formats an issue as `file:line:col: path: message` (what editors and people both read). */
export function formatSpecIssue(issue: SpecIssue): string {
  const where = issue.line === undefined ? issue.file : `${issue.file}:${issue.line}:${issue.column ?? 1}`;
  return issue.path ? `${where}: ${issue.path}: ${issue.message}` : `${where}: ${issue.message}`;
}

/** Bad input in a cluster spec, playbook or inventory: every problem at once. Exit code 2. */
export class SpecError extends KubemixError {
  readonly issues: SpecIssue[];
  constructor(issues: SpecIssue[]) {
    super(issues.map(formatSpecIssue).join('\n'), { exitCode: EXIT.badInput });
    this.issues = issues;
  }
}

/** Bad command-line usage (unknown flag, missing argument, unknown task name). Exit code 2. */
export class UsageError extends KubemixError {
  constructor(message: string) {
    super(message, { exitCode: EXIT.badInput });
  }
}

/** Another `kubemix up` holds the cluster's lock. */
export class ClusterLockedError extends KubemixError {
  constructor(clusterDir: string, pid: number) {
    super(
      `cluster directory ${clusterDir} is in use by another kubemix run (pid ${pid}); wait for it or stop it first`,
      { exitCode: EXIT.failed },
    );
  }
}

/** A secret reference (env var or file) that cannot be resolved. Exit code 2: it is bad input. */
export class SecretRefError extends KubemixError {
  constructor(message: string) {
    super(message, { exitCode: EXIT.badInput });
  }
}

/** A host could not be reached (connection refused, timeout, authentication failure). */
export class ConnectionError extends KubemixError {
  readonly host: string;
  constructor(host: string, message: string, options: { cause?: unknown } = {}) {
    super(`${host}: ${message}`, { exitCode: EXIT.failed, cause: options.cause });
    this.host = host;
  }
}

/** A host key that does not match known_hosts, or is revoked. Never retried. */
export class HostKeyError extends ConnectionError {}

/** A step that cannot run at all (unknown module, bad arguments): failed without retries. */
export class StepDefinitionError extends KubemixError {}

/** A task that is part of the plan but not built yet. */
export class NotImplementedError extends KubemixError {
  constructor(what: string) {
    super(`not implemented yet: ${what}`, { exitCode: EXIT.failed });
  }
}

/** Programmer mistakes (bad options to an API): thrown early, never turned into results. */
export class InternalError extends KubemixError {
  constructor(message: string) {
    super(message, { exitCode: EXIT.internalError });
  }
}
