import type { InventoryHost } from '../types/inventory.js';
import {
  type HostAssignment,
  type ProviderResource,
  type ProvisionUpdate,
  resourceKey,
} from '../types/provision.js';

/** The provider part of a cluster state: resources by key order of first record, assignments by host. */
export interface ProvisionRecords {
  resources: ProviderResource[];
  assignments: Record<string, HostAssignment>;
}

/**
 * Applies an update to the records in place: a resource replaces the one with its key (details
 * merged, so a later record need not repeat them); an assignment merges into the host's (vars merged).
 */
export function applyProvisionUpdate(records: ProvisionRecords, update: ProvisionUpdate, now: string): void {
  for (const resource of update.resources ?? []) {
    const key = resourceKey(resource);
    const index = records.resources.findIndex((r) => resourceKey(r) === key);
    const previous = index >= 0 ? records.resources[index] : undefined;
    const details = { ...previous?.details, ...resource.details };
    const merged: ProviderResource = {
      ...previous,
      ...resource,
      ...(Object.keys(details).length > 0 ? { details } : {}),
      updatedAt: now,
    };
    if (index >= 0) records.resources[index] = merged;
    else records.resources.push(merged);
  }
  for (const assignment of update.hosts ?? []) {
    const previous = records.assignments[assignment.name];
    const vars = { ...previous?.vars, ...assignment.vars };
    records.assignments[assignment.name] = {
      ...previous,
      ...assignment,
      ...(Object.keys(vars).length > 0 ? { vars } : {}),
    };
  }
}

/** A planned host with what a provider assigned to it (address, port, credentials, vars). */
export function assignHost(host: InventoryHost, assignment: HostAssignment | undefined): InventoryHost {
  if (!assignment) return host;
  const { name: _name, vars, ...fields } = assignment;
  const assigned: InventoryHost = { ...host, ...fields };
  if (vars) assigned.vars = { ...host.vars, ...vars };
  return assigned;
}

/** Resources that may still exist: everything recorded and not known to be deleted. */
export function liveResources(resources: readonly ProviderResource[]): ProviderResource[] {
  return resources.filter((r) => r.status !== 'deleted');
}
