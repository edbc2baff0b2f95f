import type { RuleIssue, SpecPath, SpecView } from './spec-view.js';

/** A cross-field rule: reads the whole spec as written, returns the problems it finds. */
export type CrossFieldRule = (spec: SpecView) => RuleIssue[];

/** Reports every repeat of a name, pointing back at the first use. */
export function duplicateNames(
  items: { index: number; name?: string }[],
  base: SpecPath,
  what: string,
): RuleIssue[] {
  const first = new Map<string, number>();
  const issues: RuleIssue[] = [];
  for (const item of items) {
    if (item.name === undefined) continue;
    const seen = first.get(item.name);
    if (seen === undefined) first.set(item.name, item.index);
    else
      issues.push({
        path: [...base, item.index, 'name'],
        message: `duplicate ${what} name "${item.name}" (already used by ${[...base, seen].join('.')})`,
      });
  }
  return issues;
}

/**
 * Name of the `index`-th (1-based) node of a group on providers that create hosts:
 * `controller-01`, `<group>-01`... (the naming src/plan uses for libvirt and EC2 nodes).
 */
export function generatedNodeName(group: string, index: number): string {
  const prefix = group === 'control-plane' ? 'controller' : group;
  return `${prefix}-${String(index).padStart(2, '0')}`;
}
