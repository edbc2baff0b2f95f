import { LOCALHOST } from '../types/localhost.js';
import { type CrossFieldRule, duplicateNames } from './rule-helpers.js';
import type { RuleIssue } from './spec-view.js';

const hostPath = (index: number, key: string) => ['provider', 'hosts', index, key];

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Static host names are unique node names, and `localhost` means the machine running kubemix. */
export const staticHostNamesRule: CrossFieldRule = (spec) => {
  if (spec.provider.type !== 'static') return [];
  const issues = duplicateNames(spec.provider.hosts, ['provider', 'hosts'], 'host');
  for (const host of spec.provider.hosts) {
    if (host.name === LOCALHOST.name) {
      issues.push({
        path: hostPath(host.index, 'name'),
        message: '"localhost" is reserved for the machine running kubemix; choose another host name',
      });
    }
  }
  return issues;
};

/**
 * Every static host belongs to a known group, each group gets exactly `count` hosts, and a
 * Windows host is never reached as `local`.
 */
export const staticHostGroupsRule: CrossFieldRule = (spec) => {
  if (spec.provider.type !== 'static') return [];
  const issues: RuleIssue[] = [];
  // Only names that are names: a malformed one is reported at its own field, not echoed here.
  const groups = spec.workers.filter((g) => typeof g.name === 'string' && /^[a-z0-9-]+$/.test(g.name));
  const known = ['control-plane', ...groups.map((g) => g.name as string)];
  const listed = new Map<string, number>();
  for (const host of spec.provider.hosts) {
    if (host.group === undefined) continue;
    if (!known.includes(host.group)) {
      issues.push({
        path: hostPath(host.index, 'group'),
        message: `unknown group ${JSON.stringify(host.group)}; expected one of: ${known.join(', ')}`,
      });
      continue;
    }
    listed.set(host.group, (listed.get(host.group) ?? 0) + 1);
    const windows = groups.some((g) => g.name === host.group && g.os === 'windows');
    if (windows && host.connection === 'local') {
      issues.push({
        path: hostPath(host.index, 'connection'),
        message: `host of windows group "${host.group}" cannot use connection local (use winrm or ssh)`,
      });
    }
  }
  const mismatch = (group: string, count: number) =>
    `${plural(listed.get(group) ?? 0, 'host')} listed for group ${group} but count is ${count}`;
  // The control plane count defaults to 1 when not written.
  const cpCount = spec.controlPlane.count ?? 1;
  if (Number.isInteger(cpCount) && cpCount > 0 && (listed.get('control-plane') ?? 0) !== cpCount) {
    issues.push({ path: ['nodes', 'controlPlane', 'count'], message: mismatch('control-plane', cpCount) });
  }
  const checked = new Set<string>(['control-plane']);
  for (const group of groups) {
    const name = group.name as string;
    // Duplicate or reserved names, and counts the schema refuses, are reported elsewhere.
    if (checked.has(name)) continue;
    checked.add(name);
    if (group.count === undefined || !Number.isInteger(group.count) || group.count < 0) continue;
    if ((listed.get(name) ?? 0) === group.count) continue;
    issues.push({
      path: ['nodes', 'workers', group.index, 'count'],
      message: mismatch(name, group.count),
    });
  }
  return issues;
};

/** Several controllers on hosts kubemix did not create need a load-balanced API endpoint. */
export const staticHaEndpointRule: CrossFieldRule = (spec) => {
  const count = spec.controlPlane.count;
  if (spec.provider.type !== 'static' || (count !== 3 && count !== 5) || spec.controlPlane.endpoint)
    return [];
  return [
    {
      path: ['nodes', 'controlPlane', 'endpoint'],
      message: `${count} controllers on static hosts need nodes.controlPlane.endpoint (a load-balanced API address host[:port])`,
    },
  ];
};

export const staticHostRules: readonly CrossFieldRule[] = [
  staticHostNamesRule,
  staticHostGroupsRule,
  staticHaEndpointRule,
];
