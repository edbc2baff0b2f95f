import { isIP } from 'node:net';
import { isHostAddress } from './field-patterns.js';

/** A hypervisor named on the command line: `host`, `user@host`, `user@host:port`, `[v6]:port`. */
export interface HypervisorAddress {
  address: string;
  user?: string;
  port?: number;
}

/** Why an address was refused. Never repeats the text: a `user:password@host` must not be echoed. */
export type HypervisorAddressProblem = string;

/** Parses `[user@]host[:port]` (IPv6 in brackets when a port follows). */
export function parseHypervisorAddress(text: string): HypervisorAddress | HypervisorAddressProblem {
  const at = text.lastIndexOf('@');
  const user = at >= 0 ? text.slice(0, at) : undefined;
  const rest = at >= 0 ? text.slice(at + 1) : text;
  if (user?.includes(':'))
    return 'must not contain a password (user:password@host); give credentials by reference in a YAML spec';
  if (user === '') return 'has an empty user before "@"';
  let host = rest;
  let portText: string | undefined;
  const bracketed = /^\[([0-9A-Fa-f:.]+)\](?::(\d*))?$/.exec(rest);
  const colons = (rest.match(/:/g) ?? []).length;
  if (bracketed) {
    host = bracketed[1] as string;
    portText = bracketed[2];
  } else if (colons === 1) {
    [host, portText] = rest.split(':') as [string, string];
  }
  // Several colons without brackets: a bare IPv6 address, no port.
  const valid = bracketed || colons > 1 ? isIP(host) === 6 : isHostAddress(host);
  if (!valid) return 'is not an address like host, user@host or user@host:port';
  const result: HypervisorAddress = { address: host };
  if (user !== undefined) result.user = user;
  if (portText !== undefined) {
    const port = Number(portText);
    if (!/^\d+$/.test(portText) || port < 1 || port > 65535) return 'has a port outside 1-65535';
    result.port = port;
  }
  return result;
}
