import { commandModule, shellModule } from './command.js';
import type { Module } from './types.js';

/** Every module kubemix knows, by name. Add new modules here. */
const modules = new Map<string, Module<unknown>>();

/** Registers a module; a second module with the same name is a programmer error. */
export function registerModule(module: Module<any>): void {
  if (modules.has(module.name)) throw new TypeError(`module ${module.name} is registered twice`);
  modules.set(module.name, module as Module<unknown>);
}

/** Looks a module up by name (Ansible's `ansible.builtin.` prefix is accepted). */
export function findModule(name: string): Module<unknown> | undefined {
  return modules.get(name.replace(/^ansible\.(builtin|windows)\./, ''));
}

export function moduleNames(): string[] {
  return [...modules.keys()].sort();
}

registerModule(commandModule);
registerModule(shellModule);
