/**
 * IPv4 CIDR parsing and overlap checks for the spec's network ranges. Pure.
 */

/** A parsed IPv4 CIDR: the network address (host bits cleared) and the prefix length. */
export interface Ipv4Cidr {
  /** Network address as an unsigned 32-bit integer, host bits cleared. */
  network: number;
  prefix: number;
}

const CIDR_PATTERN = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/;

/** Parses `a.b.c.d/n`; undefined when it is not a valid IPv4 CIDR. */
export function parseCidr(text: string): Ipv4Cidr | undefined {
  const match = CIDR_PATTERN.exec(text);
  if (!match) return undefined;
  const octets = match.slice(1, 5).map(Number);
  const prefix = Number(match[5]);
  if (octets.some((o) => o > 255) || prefix > 32) return undefined;
  const address = octets.reduce((acc, o) => acc * 256 + o, 0);
  const size = 2 ** (32 - prefix);
  return { network: address - (address % size), prefix };
}

/** True when two ranges share at least one address. */
export function cidrsOverlap(a: Ipv4Cidr, b: Ipv4Cidr): boolean {
  const aEnd = a.network + 2 ** (32 - a.prefix);
  const bEnd = b.network + 2 ** (32 - b.prefix);
  return a.network < bEnd && b.network < aEnd;
}

/** Address `offset` inside an IPv4 CIDR (offset 1 = the first usable address), dotted. */
export function addressInCidr(cidr: string, offset: number): string {
  const parsed = parseCidr(cidr);
  if (!parsed) throw new TypeError(`not an IPv4 CIDR: ${cidr}`);
  const value = parsed.network + offset;
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}
