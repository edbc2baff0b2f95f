import type { InventoryHost } from '../types/inventory.js';
import { groupHosts } from './inventory.js';
import type { Inventory, Playbook } from './types.js';

/** Result of resolving a host pattern: host names in inventory order, plus terms that matched nothing. */
export interface PatternMatch {
  hosts: string[];
  unmatched: string[];
}

function splitPattern(pattern: string): string[] {
  if (pattern.includes(','))
    return pattern
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
  // Split on ':' outside [ranges] (web[1:3] is one term).
  const terms: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of pattern) {
    if (ch === '[') depth++;
    if (ch === ']') depth--;
    if (ch === ':' && depth === 0) {
      terms.push(current);
      current = '';
    } else current += ch;
  }
  terms.push(current);
  return terms.map((t) => t.trim()).filter(Boolean);
}

function globToRegex(glob: string): RegExp {
  return new RegExp(
    `^${glob
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replaceAll('*', '.*')
      .replaceAll('?', '.')}$`,
  );
}

function matchTerm(inventory: Inventory, term: string): string[] {
  if (term === 'all' || term === '*') return inventory.hosts.map((h) => h.name);
  if (inventory.groups[term]) return groupHosts(inventory, term);
  const names = inventory.hosts.map((h) => h.name);
  if (names.includes(term)) return [term];
  let matcher: RegExp | undefined;
  if (term.startsWith('~')) matcher = new RegExp(term.slice(1));
  else if (/[*?]/.test(term)) matcher = globToRegex(term);
  if (!matcher) return [];
  const re = matcher;
  const hits = new Set(names.filter((n) => re.test(n)));
  for (const group of Object.keys(inventory.groups))
    if (re.test(group)) for (const h of groupHosts(inventory, group)) hits.add(h);
  return names.filter((n) => hits.has(n));
}

/**
 * Resolves an Ansible host pattern: `all`, `*`, a group, a host, wildcards (`web*`), regexes
 * (`~web\d+`), unions (`a:b` or `a,b`), intersections (`a:&b`) and exclusions (`a:!b`).
 * As in Ansible, unions apply first, then intersections, then exclusions.
 */
export function resolveHostPattern(inventory: Inventory, pattern: string | string[]): PatternMatch {
  const terms = Array.isArray(pattern) ? pattern.flatMap(splitPattern) : splitPattern(pattern);
  const unmatched: string[] = [];
  const union = new Set<string>();
  const intersections: Set<string>[] = [];
  const exclusions = new Set<string>();
  for (const raw of terms) {
    const kind = raw.startsWith('&') ? 'and' : raw.startsWith('!') ? 'not' : 'or';
    const term = kind === 'or' ? raw : raw.slice(1);
    const hits = matchTerm(inventory, term);
    if (hits.length === 0 && !inventory.groups[term]) unmatched.push(term);
    if (kind === 'or') for (const h of hits) union.add(h);
    else if (kind === 'and') intersections.push(new Set(hits));
    else for (const h of hits) exclusions.add(h);
  }
  const hosts = inventory.hosts
    .map((h) => h.name)
    .filter((h) => union.has(h) && intersections.every((set) => set.has(h)) && !exclusions.has(h));
  return { hosts, unmatched };
}

/** Hosts some play of the playbook runs on (within `--limit`): the ones whose connections are needed. */
export function targetedHosts(
  playbook: Playbook,
  inventory: Inventory,
  limit: string | undefined,
): InventoryHost[] {
  const names = new Set(playbook.plays.flatMap((play) => resolveHostPattern(inventory, play.hosts).hosts));
  const limited = limit === undefined ? undefined : new Set(resolveHostPattern(inventory, limit).hosts);
  return inventory.hosts.filter((h) => names.has(h.name) && (!limited || limited.has(h.name)));
}
