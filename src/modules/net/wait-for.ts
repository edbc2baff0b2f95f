import { shQuote } from '../../quote/index.js';
import { oneOf, optionalString, type RawArgs } from '../args.js';
import type { Module, ModuleOutcome } from '../types.js';
import { parseWaitForArgs, type WaitTarget } from '../wait-for-args.js';

/** Arguments of `wait_for`: a TCP port or a file path, present or absent. Times in seconds, like Ansible. */
export interface WaitForArgs {
  host: string;
  port?: number;
  path?: string;
  state: 'started' | 'stopped' | 'present' | 'absent';
  searchRegex?: string;
  timeout: number;
  delay: number;
  sleep: number;
  connectTimeout: number;
  msg?: string;
}

/** One probe: prints OPEN/CLOSED (port) or PRESENT/ABSENT (path), plus what it read for search_regex. */
export function probeCommand(args: WaitForArgs): string {
  if (args.port !== undefined) {
    const target = `/dev/tcp/${args.host}/${args.port}`;
    // bash's /dev/tcp needs no netcat; the inner timeout bounds reading a banner for search_regex.
    const read = args.searchRegex !== undefined ? '; timeout 1 cat <&3' : '';
    const script = `exec 3<>${target} && echo __KMX_OPEN__${read}`;
    return `timeout ${args.connectTimeout + (args.searchRegex !== undefined ? 1 : 0)} bash -c ${shQuote(script)} 2>/dev/null || echo __KMX_CLOSED__`;
  }
  const p = shQuote(args.path ?? '');
  if (args.searchRegex !== undefined)
    return `if [ -f ${p} ]; then echo __KMX_PRESENT__; cat ${p}; else echo __KMX_ABSENT__; fi`;
  return `if [ -e ${p} ]; then echo __KMX_PRESENT__; else echo __KMX_ABSENT__; fi`;
}

function satisfied(args: WaitForArgs, stdout: string): boolean {
  const up = stdout.includes('__KMX_OPEN__') || stdout.includes('__KMX_PRESENT__');
  const wantUp = args.state === 'started' || args.state === 'present';
  if (!wantUp) return !up;
  if (!up) return false;
  if (args.searchRegex === undefined) return true;
  const body = stdout.replace(/^__KMX_(OPEN|PRESENT)__\n?/, '');
  return new RegExp(args.searchRegex.replace(/\(\?P</g, '(?<'), 'm').test(body);
}

/** The wanted state: a port is started/stopped, a path present/absent (either spelling accepted). */
function readState(raw: RawArgs, { port, path }: WaitTarget): WaitForArgs['state'] {
  const defaultState = port !== undefined ? 'started' : 'present';
  const state = oneOf(
    'wait_for',
    raw,
    'state',
    ['started', 'stopped', 'present', 'absent'] as const,
    defaultState,
  );
  return state === 'present' && port !== undefined
    ? 'started'
    : state === 'started' && path !== undefined
      ? 'present'
      : state;
}

/**
 * `wait_for`: polls a port (via bash /dev/tcp on the host) or a path until it reaches the wanted
 * state or `timeout` seconds pass. The elapsed time is counted from the probes' durations and
 * the sleeps, so the module stays a pure function of its results.
 */
export const waitForModule: Module<WaitForArgs> = {
  name: 'wait_for',
  os: 'linux',
  parseArgs(raw: RawArgs) {
    const { target, own, timing } = parseWaitForArgs(raw, {
      module: 'wait_for',
      supported: [
        'host',
        'port',
        'path',
        'state',
        'search_regex',
        'timeout',
        'delay',
        'sleep',
        'connect_timeout',
        'msg',
      ],
      readOwn: (target) => readState(raw, target),
      minConnectTimeout: 1,
    });
    const { host, ...rest } = timing;
    const args: WaitForArgs = { host, state: own, ...rest };
    if (!/^[\w.:-]+$/.test(args.host))
      throw new TypeError('wait_for: "host" must be a host name or IP address');
    if (target.port !== undefined) args.port = Math.trunc(target.port);
    if (target.path !== undefined) args.path = target.path;
    const searchRegex = optionalString('wait_for', raw, 'search_regex');
    if (searchRegex !== undefined) args.searchRegex = searchRegex;
    const msg = optionalString('wait_for', raw, 'msg');
    if (msg !== undefined) args.msg = msg;
    return args;
  },
  *run(args) {
    const what = args.port !== undefined ? `${args.host}:${args.port}` : args.path!;
    let elapsedMs = 0;
    if (args.delay > 0) {
      const slept = yield { kind: 'sleep', ms: args.delay * 1000 };
      elapsedMs += slept.durationMs;
    }
    const limitMs = args.timeout * 1000;
    for (let attempt = 1; ; attempt++) {
      const probe = yield {
        kind: 'exec',
        command: probeCommand(args),
        timeoutMs: (args.connectTimeout + 5) * 1000,
      };
      elapsedMs += probe.durationMs;
      if (satisfied(args, probe.stdout)) {
        const outcome: ModuleOutcome = {
          changed: false,
          failed: false,
          data: { elapsed: Math.round(elapsedMs / 1000), attempts: attempt, state: args.state },
        };
        if (args.port !== undefined) outcome.data!['port'] = args.port;
        if (args.path !== undefined) outcome.data!['path'] = args.path;
        return outcome;
      }
      if (elapsedMs >= limitMs) {
        return {
          changed: false,
          failed: true,
          msg:
            args.msg ??
            `Timeout when waiting for ${what} to be ${args.state}${args.searchRegex ? ` matching ${args.searchRegex}` : ''} (${args.timeout} s)`,
          data: { elapsed: Math.round(elapsedMs / 1000), attempts: attempt },
        };
      }
      const slept = yield {
        kind: 'sleep',
        ms: Math.min(args.sleep * 1000, Math.max(limitMs - elapsedMs, 1)),
      };
      elapsedMs += Math.max(slept.durationMs, 1);
    }
  },
};
