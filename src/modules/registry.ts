import { commandModule, shellModule } from './commands/command.js';
import { rawModule } from './commands/raw.js';
import { scriptModule } from './commands/script.js';
import { copyModule } from './files/copy.js';
import { fetchModule } from './files/fetch.js';
import { fileModule } from './files/file.js';
import { lineinfileModule } from './files/lineinfile.js';
import { templateModule } from './files/template.js';
import { assertModule } from './flow/assert.js';
import { debugModule } from './flow/debug.js';
import { failModule } from './flow/fail.js';
import { setFactModule } from './flow/set-fact.js';
import { waitForModule } from './net/wait-for.js';
import { waitForConnectionModule } from './net/wait-for-connection.js';
import { probeModule } from './probe.js';
import { aptModule, dnfModule, packageModule } from './system/package.js';
import { rebootModule } from './system/reboot.js';
import { serviceModule, systemdModule } from './system/service.js';
import type { Module } from './types.js';
import {
  winCommandModule,
  winCopyModule,
  winFeatureModule,
  winFileModule,
  winGetUrlModule,
  winPathModule,
  winRebootModule,
  winServiceModule,
  winShellModule,
  winTemplateModule,
  winWaitForModule,
} from './windows/index.js';

/**
 * Every module kubemix knows, by name. The modules below are the provider-neutral ones; each
 * provider keeps its own modules in its folder and src/provider/index.ts registers them (a module
 * sits below the providers: a provider's module uses this contract, never the other way).
 */
const modules = new Map<string, Module<unknown>>();

/** Registers a module; a second module with the same name is a programmer error. */
export function registerModule(module: Module<any>): void {
  if (modules.has(module.name)) throw new TypeError(`module ${module.name} is registered twice`);
  modules.set(module.name, module as Module<unknown>);
}

/** Looks a module up by name (Ansible's `ansible.builtin.` / `ansible.legacy.` prefixes are accepted). */
export function findModule(name: string): Module<unknown> | undefined {
  return modules.get(name.replace(/^ansible\.(builtin|legacy|windows)\./, ''));
}

/** Names of every registered module, sorted. */
export function moduleNames(): string[] {
  return [...modules.keys()].sort();
}

for (const module of [
  commandModule,
  shellModule,
  rawModule,
  scriptModule,
  copyModule,
  templateModule,
  fetchModule,
  fileModule,
  lineinfileModule,
  waitForModule,
  waitForConnectionModule,
  rebootModule,
  setFactModule,
  debugModule,
  assertModule,
  failModule,
  packageModule,
  aptModule,
  dnfModule,
  serviceModule,
  systemdModule,
  probeModule,
  winShellModule,
  winCommandModule,
  winCopyModule,
  winTemplateModule,
  winFileModule,
  winGetUrlModule,
  winFeatureModule,
  winRebootModule,
  winServiceModule,
  winPathModule,
  winWaitForModule,
] as Module<any>[]) {
  registerModule(module);
}
