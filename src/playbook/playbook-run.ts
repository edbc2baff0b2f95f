import { Redactor } from '../engine/redactor.js';
import { UsageError } from '../errors/index.js';
import { type TransportFactory, TransportPool } from '../executor/transport-pool.js';
import { requireUsableCredentials } from '../plan/credential-check.js';
import { localCredentialLookup } from '../transport/ssh/index.js';
import type { RunEvent } from '../types/events.js';
import type { InventoryHost } from '../types/inventory.js';
import { resolveConnectionSecrets } from './connection-secrets.js';
import { resolveHostPattern, targetedHosts } from './host-pattern.js';
import { groupHosts, groupsOfHost } from './inventory.js';
import type { HostStats } from './recap.js';
import type { RunPlaybookOptions, TaskRecord, UntimedRunEvent } from './run-types.js';
import type { Inventory, Play, Playbook, Task } from './types.js';

/** What every stage of one playbook run shares: its inputs, what it learnt so far, and its event sink. */
export interface PlaybookRun {
  options: RunPlaybookOptions;
  playbook: Playbook;
  inventory: Inventory;
  extraVars: Record<string, unknown>;
  forks: number;
  pool: TransportPool;
  redactor: Redactor;
  /** Stamps, redacts and hands an event to the listener. */
  emit: (event: UntimedRunEvent) => void;
  stats: Record<string, HostStats>;
  records: TaskRecord[];
  /** set_fact values, per host. */
  facts: Record<string, Record<string, unknown>>;
  /** `register:` values, per host. */
  registered: Record<string, Record<string, unknown>>;
  /** Hosts out of the run (failed or unreachable): later plays skip them too. */
  dropped: Set<string>;
  hostByName: Map<string, InventoryHost>;
  /** The `groups` magic variable. */
  groupsVar: Record<string, string[]>;
  /** `group_names` of each host. */
  groupNames: Map<string, string[]>;
  /** Hosts `--limit` lets through, when given. */
  limitHosts?: Set<string>;
}

/** One play of a run: who it runs on and which handlers were notified. */
export interface PlayRun {
  run: PlaybookRun;
  play: Play;
  /** Every host of the play (`ansible_play_hosts_all`). */
  hosts: InventoryHost[];
  /** Hosts still in the play (`ansible_play_hosts`); failed and unreachable ones leave. */
  active: InventoryHost[];
  /** Variables of the play's vars_files. */
  playVars: Record<string, unknown>;
  /** Handlers notified, with the hosts that notified them. */
  notified: Map<Task, Set<string>>;
}

/**
 * Sets a run up before its first event: the redactor, the inventory's connection secrets (one
 * that cannot be resolved stops the run here), the transport pool and the `--limit` hosts.
 */
export function startRun(options: RunPlaybookOptions, playbook: Playbook): PlaybookRun {
  const { inventory } = options;
  // The same redaction as `kubemix up`: what a no_log task registers is a secret for the rest
  // of the run, hidden wherever it turns up again (commands, output, messages, records).
  const redactor = new Redactor();
  const emit = (event: UntimedRunEvent) =>
    options.onEvent?.(redactor.event({ ...event, time: new Date().toISOString() } as RunEvent));
  // The inventory's connection passwords are hidden the same way, from the first event on, and
  // one that cannot be resolved (an unset variable in a lookup) stops the run before it starts.
  const targeted = targetedHosts(playbook, inventory, options.limit);
  // Key files and password references that do not resolve here: refused before any connection.
  requireUsableCredentials(targeted, localCredentialLookup);
  const secrets = resolveConnectionSecrets(targeted, {
    playbookDir: playbook.dir,
  });
  for (const value of secrets.values) redactor.addWhole(value);
  const transports: TransportFactory = (host) => options.transports(host, secrets.byHost.get(host.name));
  const run: PlaybookRun = {
    options,
    playbook,
    inventory,
    extraVars: options.extraVars ?? {},
    forks: options.forks ?? 5,
    pool: options.pool ?? new TransportPool(transports, (report) => emit({ type: 'connection', ...report })),
    redactor,
    emit,
    stats: {},
    records: [],
    facts: {},
    registered: {},
    dropped: new Set(),
    hostByName: new Map(inventory.hosts.map((h) => [h.name, h])),
    groupsVar: Object.fromEntries(Object.keys(inventory.groups).map((g) => [g, groupHosts(inventory, g)])),
    groupNames: new Map(inventory.hosts.map((h) => [h.name, groupsOfHost(inventory, h.name)])),
  };
  if (options.limit) {
    const match = resolveHostPattern(inventory, options.limit);
    if (match.hosts.length === 0)
      throw new UsageError(`--limit "${options.limit}" matches no host of the inventory`);
    run.limitHosts = new Set(match.hosts);
  }
  return run;
}

/** Takes a failed or unreachable host out of the play and of the rest of the run. */
export function dropHost(playRun: PlayRun, name: string): void {
  playRun.run.dropped.add(name);
  const i = playRun.active.findIndex((h) => h.name === name);
  if (i >= 0) playRun.active.splice(i, 1);
}
