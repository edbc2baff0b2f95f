import { SecretRefError } from '../errors/index.js';
import type { InventoryHost, SecretRef } from '../types/inventory.js';
import type { Plan } from '../types/plan.js';

/** How the check sees this machine: injected, so the check itself is pure. */
export interface CredentialLookup {
  /** Why a reference cannot be resolved here, or undefined when it can (never its value). */
  refProblem(ref: SecretRef): string | undefined;
  /** True when an ssh-agent is there to ask ($SSH_AUTH_SOCK set). */
  hasSshAgent(): boolean;
}

/** A credential the user wrote that cannot be used from this machine, with every host that uses it. */
export interface CredentialProblem {
  hosts: string[];
  /** Where it was written: a spec path or an inventory variable. */
  field: string;
  /** What is wrong: names the variable or file, never a value. */
  problem: string;
}

const SECRET_PARTS = ['privateKey', 'passphrase', 'password'] as const;

/**
 * The one rule for credentials kubemix cannot use (issue #21): every secret reference the user
 * wrote for a host it logs in to resolves on this machine (the variable set and not empty, the
 * file readable), and `agent: true` has an ssh-agent. Credentials kubemix makes itself (the
 * cluster key, which `up` creates) carry no field and are not checked; nor are `local` hosts,
 * which log in to nothing. One problem per field and cause, naming every host that uses it.
 */
export function unusableCredentials(hosts: InventoryHost[], lookup: CredentialLookup): CredentialProblem[] {
  const problems = new Map<string, CredentialProblem>();
  const add = (host: string, field: string, problem: string) => {
    const key = `${field}\0${problem}`;
    const known = problems.get(key);
    if (known) known.hosts.push(host);
    else problems.set(key, { hosts: [host], field, problem });
  };
  for (const host of hosts) {
    const fields = host.credentialFields;
    if (!fields || !host.credentials || host.connection === 'local') continue;
    for (const part of SECRET_PARTS) {
      const ref = host.credentials[part];
      const field = fields[part];
      if (!ref || field === undefined) continue;
      const problem = lookup.refProblem(ref);
      if (problem) add(host.name, field, problem);
    }
    const agentField = fields.agent;
    if (host.credentials.agent === true && agentField !== undefined && !lookup.hasSshAgent())
      add(host.name, agentField, 'ssh-agent requested but SSH_AUTH_SOCK is not set');
  }
  return [...problems.values()];
}

/** A problem as one line: `host win-01: provider.hosts.2.credentials.password: environment variable X is not set`. */
export function credentialProblemLine(problem: CredentialProblem): string {
  const who = `${problem.hosts.length === 1 ? 'host' : 'hosts'} ${problem.hosts.join(', ')}`;
  return `${who}: ${problem.field}: ${problem.problem}`;
}

/**
 * Refuses unusable credentials before anything is locked or created: a SecretRefError (exit 2)
 * with one line per problem.
 */
export function requireUsableCredentials(hosts: InventoryHost[], lookup: CredentialLookup): void {
  const problems = unusableCredentials(hosts, lookup);
  if (problems.length > 0) throw new SecretRefError(problems.map(credentialProblemLine).join('\n'));
}

/** The plan's hosts its tasks (all, or the named ones) run on: the ones it connects to. */
export function hostsConnectedBy(plan: Plan, tasks?: readonly string[]): InventoryHost[] {
  const used = new Set(plan.tasks.filter((t) => !tasks || tasks.includes(t.name)).flatMap((t) => t.hosts));
  return plan.hosts.filter((h) => used.has(h.name));
}
