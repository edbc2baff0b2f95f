import { assignHost } from '../engine/provision.js';
import type { ClusterState } from '../engine/state.js';
import type { Plan } from '../types/plan.js';

/** A plan's hosts as the state knows them: with what providers assigned (addresses, credentials...). */
export function withRecordedHosts(plan: Plan, state: ClusterState | undefined): Plan {
  if (!state) return plan;
  return { ...plan, hosts: plan.hosts.map((h) => assignHost(h, state.assignments[h.name])) };
}
