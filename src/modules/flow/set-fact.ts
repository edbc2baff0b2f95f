import { immediate } from '../immediate.js';
import type { Module, ModuleOutcome } from '../types.js';

/** `set_fact`: sets host variables for the rest of the run (values arrive already templated). */
export const setFactModule: Module<Record<string, unknown>> = {
  name: 'set_fact',
  os: 'any',
  parseArgs(raw) {
    const facts = { ...raw };
    delete facts['cacheable'];
    if (Object.keys(facts).length === 0) throw new TypeError('set_fact: give at least one variable to set');
    for (const key of Object.keys(facts)) {
      if (!/^[A-Za-z_]\w*$/.test(key)) throw new TypeError(`set_fact: "${key}" is not a valid variable name`);
    }
    return facts;
  },
  run(args) {
    return immediate(outcomeOf(args));
  },
};

function outcomeOf(args: Record<string, unknown>): ModuleOutcome {
  return { changed: false, failed: false, facts: args, data: { ansible_facts: args } };
}
