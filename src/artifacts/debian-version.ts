/**
 * Debian version order (deb-version(7); dpkg lib/dpkg/version.c: dpkg_version_compare and
 * verrevcmp): epoch numerically, then the upstream version and the revision, each compared in
 * alternating non-digit and digit runs, where `~` sorts before everything (even the end of the
 * string) and letters sort before other characters. Pure; used where no dpkg can be asked
 * (`kubemix artifacts` may run on any machine).
 */

/** A character's weight in a non-digit run (verrevcmp's `order`). */
function order(c: string | undefined): number {
  if (c === undefined) return 0;
  if (c === '~') return -1;
  if (/[0-9]/.test(c)) return 0;
  if (/[A-Za-z]/.test(c)) return c.charCodeAt(0);
  return c.charCodeAt(0) + 256;
}

/** Compares two upstream versions or revisions as dpkg's verrevcmp does. */
function verrevcmp(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    let firstDiff = 0;
    while ((i < a.length && !/[0-9]/.test(a[i]!)) || (j < b.length && !/[0-9]/.test(b[j]!))) {
      const ac = order(a[i]);
      const bc = order(b[j]);
      if (ac !== bc) return ac - bc;
      i++;
      j++;
    }
    while (a[i] === '0') i++;
    while (b[j] === '0') j++;
    while (i < a.length && j < b.length && /[0-9]/.test(a[i]!) && /[0-9]/.test(b[j]!)) {
      if (!firstDiff) firstDiff = a.charCodeAt(i) - b.charCodeAt(j);
      i++;
      j++;
    }
    if (i < a.length && /[0-9]/.test(a[i]!)) return 1;
    if (j < b.length && /[0-9]/.test(b[j]!)) return -1;
    if (firstDiff) return firstDiff;
  }
  return 0;
}

/** `epoch:upstream-revision` split as dpkg parses it (no epoch: 0; no `-`: revision ''). */
function split(version: string): { epoch: number; upstream: string; revision: string } {
  const colon = version.indexOf(':');
  const epoch = colon >= 0 ? Number(version.slice(0, colon)) : 0;
  const rest = colon >= 0 ? version.slice(colon + 1) : version;
  const dash = rest.lastIndexOf('-');
  return dash >= 0
    ? { epoch, upstream: rest.slice(0, dash), revision: rest.slice(dash + 1) }
    : { epoch, upstream: rest, revision: '' };
}

/** Negative, zero or positive as `a` sorts before, with or after `b` in Debian version order. */
export function compareDebianVersions(a: string, b: string): number {
  const x = split(a);
  const y = split(b);
  if (x.epoch !== y.epoch) return x.epoch - y.epoch;
  return verrevcmp(x.upstream, y.upstream) || verrevcmp(x.revision, y.revision);
}
