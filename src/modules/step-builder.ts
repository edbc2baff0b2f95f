import type { PlanStep } from '../types/plan.js';
import type { Module } from './types.js';

/** A `{{ ... }}` template: the run renders it (per host) before the module parses its arguments. */
export type Template = `{{ ${string} }}`;

/**
 * A module's arguments as a plan writes them: each top-level argument is its value or a template
 * that renders to it (an output registered earlier, a host variable), and the `Defaulted` ones,
 * which the module fills in when they are absent, may be left out.
 */
export type PlannedArgs<Args, Defaulted extends keyof Args = never> = {
  [K in Exclude<keyof Args, Defaulted>]: Args[K] | Template;
} & {
  [K in Defaulted]?: Args[K] | Template;
};

/** A plan step's fields besides its module and arguments (`keywords` go after the arguments). */
export type StepFields = Omit<PlanStep, 'module' | 'args'>;

/** Builds one module's plan steps: arguments of the module's own type, else a compile error. */
export type StepBuilder<Args, Defaulted extends keyof Args = never> = (
  args: PlannedArgs<Args, Defaulted>,
  fields: StepFields,
) => PlanStep;

/**
 * The typed step builder of a module: the plan names the module through its object (no module
 * name string) and gives arguments of the type the module parses, so a wrong or missing argument
 * fails to compile where the plan is written instead of at run time on a hypervisor. `defaulted`
 * lists the arguments the module fills in when absent (only their names matter, for the type).
 */
export function stepBuilder<Args, const Defaulted extends keyof Args = never>(
  module: Module<Args>,
  _defaulted: readonly Defaulted[] = [],
): StepBuilder<Args, Defaulted> {
  // Key order as the plan JSON has always shown it: name, module, the other fields, args, keywords.
  return (args, { name, keywords, ...fields }) => ({
    name,
    module: module.name,
    ...fields,
    args: args as Record<string, unknown>,
    ...(keywords ? { keywords } : {}),
  });
}
