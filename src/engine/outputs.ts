import type { ModuleRunResult } from '../executor/run-module.js';
import { type InventoryHost, nodeAddressOf } from '../types/inventory.js';
import type { SecretOutputs } from './secrets-store.js';

/**
 * What `register` keeps from a step: the module's stdout, trimmed (from its data, else from its
 * last command); a module without stdout keeps its data, else its message.
 */
export function registeredValue(outcome: ModuleRunResult): unknown {
  const stdout = outcome.data?.['stdout'];
  if (typeof stdout === 'string') return stdout.trim();
  if (outcome.data !== undefined) return outcome.data;
  const last = outcome.results.at(-1);
  if (last) return last.stdout.trim();
  return outcome.msg ?? '';
}

/** Registered outputs of a run, public (state.json) and secret (secrets.json) kept apart. */
export class OutputStore {
  constructor(
    /** Public outputs by host, then name. */
    readonly outputs: Record<string, Record<string, unknown>>,
    /** Secret outputs by host, then name. */
    readonly secrets: SecretOutputs,
  ) {}

  /** Saves a value under outputs[host][name] (or the secret store); a name lives in one of them only. */
  register(host: string, name: string, value: unknown, secret: boolean): void {
    const target = secret ? this.secrets : this.outputs;
    const other = secret ? this.outputs : this.secrets;
    target[host] = { ...target[host], [name]: value };
    if (other[host] && name in other[host]) {
      const { [name]: _dropped, ...rest } = other[host];
      other[host] = rest;
    }
  }

  /**
   * The template context of a step on `host`: `vars` (plan vars, then host vars), `host`,
   * `outputs` (every host's outputs and secrets, this host's winning on a clash, so a token
   * registered on the first control plane is visible to workers) and `outputsByHost`. `hosts`
   * (the run's inventory, with what providers assigned) gives `vars.kubemix_node_addresses`, each
   * host's node address by name: a plan var may name an address a provider assigns only at run time.
   */
  context(
    planVars: Record<string, unknown>,
    host: InventoryHost,
    hosts: Iterable<InventoryHost> = [host],
  ): Record<string, unknown> {
    const nodeAddresses: Record<string, string> = {};
    for (const h of hosts) nodeAddresses[h.name] = nodeAddressOf(h);
    const byHost: Record<string, Record<string, unknown>> = {};
    for (const source of [this.outputs, this.secrets]) {
      for (const [name, values] of Object.entries(source)) byHost[name] = { ...byHost[name], ...values };
    }
    const flat: Record<string, unknown> = {};
    for (const [name, values] of Object.entries(byHost)) if (name !== host.name) Object.assign(flat, values);
    Object.assign(flat, byHost[host.name]);
    const { credentials: _credentials, ...hostInfo } = host;
    return {
      vars: { kubemix_node_addresses: nodeAddresses, ...planVars, ...host.vars },
      host: hostInfo,
      outputs: flat,
      outputsByHost: byHost,
    };
  }
}
