/**
 * Which hypervisor each node runs on: round-robin in node order (controllers first), so the
 * first controllers land on different hypervisors and the spread is the same on every run.
 * Returns hypervisor names by node name.
 */
export function placeNodes(nodes: readonly string[], hypervisors: readonly string[]): Map<string, string> {
  if (hypervisors.length === 0) throw new TypeError('placement needs at least one hypervisor');
  return new Map(nodes.map((node, index) => [node, hypervisors[index % hypervisors.length]!]));
}
