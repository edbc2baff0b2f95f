import { optionalNumber, optionalString, type RawArgs, rejectUnknown } from './args.js';

/** What wait_for and win_wait_for wait on: a TCP port or a path, exactly one. */
export interface WaitTarget {
  port?: number;
  path?: string;
}

/** Where and how long wait_for and win_wait_for poll, in seconds like Ansible. */
export interface WaitTiming {
  host: string;
  timeout: number;
  delay: number;
  sleep: number;
  connectTimeout: number;
}

/** How one of the two modules reads its arguments where they differ. */
export interface WaitForDialect<Own> {
  module: 'wait_for' | 'win_wait_for';
  /** Every argument the module accepts, in the order its "supported" message lists them. */
  supported: readonly string[];
  /** Reads the module's own arguments (state, regex...) once the target is known; throws TypeError. */
  readOwn: (target: WaitTarget) => Own;
  /** Smallest `sleep` accepted (default 0). */
  minSleep?: number;
  /** Smallest `connect_timeout` accepted. */
  minConnectTimeout: number;
}

/**
 * The one argument parser of wait_for and win_wait_for: the target (exactly one of `port` or
 * `path`), then the module's own arguments ({@link WaitForDialect.readOwn}), then where and how
 * long to poll (`host` defaults to the host's own loopback, 127.0.0.1). Throws TypeError naming
 * the module and the argument.
 */
export function parseWaitForArgs<Own>(
  raw: RawArgs,
  dialect: WaitForDialect<Own>,
): { target: WaitTarget; own: Own; timing: WaitTiming } {
  const { module } = dialect;
  rejectUnknown(module, raw, dialect.supported);
  const port = optionalNumber(module, raw, 'port', 1);
  const path = optionalString(module, raw, 'path');
  if ((port === undefined) === (path === undefined))
    throw new TypeError(`${module}: give exactly one of "port" or "path"`);
  const target: WaitTarget = {};
  if (port !== undefined) target.port = port;
  if (path !== undefined) target.path = path;
  const own = dialect.readOwn(target);
  const timing: WaitTiming = {
    host: optionalString(module, raw, 'host') ?? '127.0.0.1',
    timeout: optionalNumber(module, raw, 'timeout') ?? 300,
    delay: optionalNumber(module, raw, 'delay') ?? 0,
    sleep: optionalNumber(module, raw, 'sleep', dialect.minSleep) ?? 1,
    connectTimeout: optionalNumber(module, raw, 'connect_timeout', dialect.minConnectTimeout) ?? 5,
  };
  return { target, own, timing };
}
