import type { InventoryHost } from '../types/inventory.js';
import { IMPLICIT_LOCALHOST } from './implicit-localhost.js';
import { OMIT } from './omit.js';
import type { PlaybookRun, PlayRun } from './run-types.js';
import type { Task } from './types.js';
import { mergeVars } from './vars.js';

/**
 * The variables a task sees on one host, lowest precedence first: magic variables, host vars,
 * play vars, vars_files, task vars, set_fact, register, extra vars.
 */
export function hostScope(
  playRun: PlayRun,
  host: InventoryHost,
  task: Task,
  hostvars: Record<string, unknown>,
): Record<string, unknown> {
  const { run, play, active, hosts } = playRun;
  const { options } = run;
  return mergeVars([
    {
      values: {
        inventory_hostname: host.name,
        inventory_hostname_short: host.name.split('.')[0],
        group_names: run.groupNames.get(host.name) ?? [],
        groups: run.groupsVar,
        hostvars,
        ansible_play_hosts: active.map((h) => h.name),
        ansible_play_batch: active.map((h) => h.name),
        play_hosts: active.map((h) => h.name),
        ansible_play_hosts_all: hosts.map((h) => h.name),
        ansible_play_name: play.name,
        playbook_dir: run.playbook.dir,
        ansible_check_mode: options.check === true,
        ansible_run_tags: options.tags ?? ['all'],
        ansible_skip_tags: options.skipTags ?? [],
        omit: OMIT,
      },
    },
    { values: host.vars, templated: true },
    { values: play.vars, templated: true },
    { values: playRun.playVars, templated: true },
    { values: task.vars, templated: true },
    { values: run.facts[host.name] },
    { values: run.registered[host.name] },
    { values: run.extraVars, templated: true },
  ]);
}

/**
 * The `hostvars` magic variable: every host's variables, each merged only when a template reads
 * it (most tasks never do, and merging renders templates).
 */
export function hostvarsOf(run: PlaybookRun): Record<string, unknown> {
  const hv: Record<string, unknown> = {};
  for (const h of [
    ...run.inventory.hosts,
    ...(run.hostByName.has(IMPLICIT_LOCALHOST.name) ? [] : [IMPLICIT_LOCALHOST]),
  ]) {
    let cache: Record<string, unknown> | undefined;
    Object.defineProperty(hv, h.name, {
      enumerable: true,
      get: () =>
        (cache ??= mergeVars([
          { values: { inventory_hostname: h.name, group_names: run.groupNames.get(h.name) ?? [] } },
          { values: h.vars, templated: true },
          { values: run.facts[h.name] },
          { values: run.registered[h.name] },
          { values: run.extraVars, templated: true },
        ])),
    });
  }
  return hv;
}
