import type { Plan, PlanStep } from '../types/plan.js';
import { topologicalOrder } from './graph.js';

/** A value the plan names but only a run knows: where it comes from and which tasks read it. */
export interface RunTimeValue {
  /** What it is: a registered output's name, `address of <hosts>`, or a plan variable's name. */
  name: string;
  /** The task (or tasks) that produce it. */
  from: string[];
  /** The tasks whose steps read it (an address: the tasks that run on the host). */
  readBy: string[];
  /** A secret output (kept in secrets.json, never shown). */
  secret: boolean;
}

/** Keywords whose strings are bare Jinja expressions, as in Ansible (`when: join_command is defined`). */
const EXPRESSION_KEYWORDS = new Set(['when', 'until', 'changed_when', 'failed_when']);
const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*/g;
const TEMPLATE_BLOCK = /\{\{([\s\S]*?)\}\}|\{%([\s\S]*?)%\}/g;
/** Names a template binds itself (`{% set x = ... %}`, `{% for a, b in ... %}`): locals, not values from elsewhere. */
const LOCAL_BINDING = /\{%-?\s*(?:set|for)\s+([A-Za-z_][A-Za-z0-9_]*(?:\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*)/g;

function strings(value: unknown, into: string[]): string[] {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const item of value) strings(item, into);
  else if (value !== null && typeof value === 'object')
    for (const item of Object.values(value)) strings(item, into);
  return into;
}

/** The identifiers a step's templates and expression keywords name (`outputs.join_command` gives both words). */
function namesReadBy(step: PlanStep): Set<string> {
  const names = new Set<string>();
  const locals = new Set<string>();
  const add = (expression: string) => {
    for (const match of expression.matchAll(IDENTIFIER)) names.add(match[0]);
  };
  for (const text of strings(step.args, [])) {
    for (const block of text.matchAll(TEMPLATE_BLOCK)) add(block[1] ?? block[2] ?? '');
    for (const binding of text.matchAll(LOCAL_BINDING))
      for (const name of binding[1]!.split(',')) locals.add(name.trim());
  }
  for (const [keyword, value] of Object.entries(step.keywords ?? {}))
    for (const text of strings(value, []))
      if (EXPRESSION_KEYWORDS.has(keyword)) add(text);
      else for (const block of text.matchAll(TEMPLATE_BLOCK)) add(block[1] ?? block[2] ?? '');
  for (const name of locals) names.delete(name);
  return names;
}

/**
 * What the plan leaves to the run, in task order: host addresses a provider records when it creates
 * the machines, plan variables templated on them, and outputs one task registers and a later task
 * reads. Read from the steps' arguments and keywords (template files are not opened). Pure.
 */
export function runTimeValues(plan: Plan): RunTimeValue[] {
  const order = topologicalOrder(plan.tasks);
  const values: RunTimeValue[] = [];
  const unaddressed = plan.hosts.filter((h) => h.address === '');
  if (unaddressed.length > 0) {
    const names = new Set(unaddressed.map((h) => h.name));
    values.push({
      name: `address of ${[...names].join(', ')}`,
      from: order.filter((t) => t.name === 'create-hosts').map((t) => t.name),
      readBy: order.filter((t) => t.hosts.some((h) => names.has(h))).map((t) => t.name),
      secret: false,
    });
  }
  const read = new Map(order.map((t) => [t.name, new Set(t.steps.flatMap((s) => [...namesReadBy(s)]))]));
  const templated = Object.entries(plan.vars).filter(([, v]) => typeof v === 'string' && /\{\{|\{%/.test(v));
  for (const [name] of templated)
    values.push({
      name,
      from: ['recorded addresses'],
      readBy: order.filter((t) => read.get(t.name)?.has(name)).map((t) => t.name),
      secret: false,
    });
  const registered = new Map<string, { from: string[]; secret: boolean }>();
  for (const task of order)
    for (const step of task.steps.filter((s) => s.register !== undefined)) {
      const entry = registered.get(step.register!) ?? { from: [], secret: false };
      if (!entry.from.includes(task.name)) entry.from.push(task.name);
      entry.secret ||= step.secret === true;
      registered.set(step.register!, entry);
    }
  for (const [name, { from, secret }] of registered) {
    // A task that registers the name itself reads its own value, not one decided by an earlier task.
    const readBy = order
      .filter((t) => !from.includes(t.name) && read.get(t.name)?.has(name))
      .map((t) => t.name);
    if (readBy.length > 0) values.push({ name, from, readBy, secret });
  }
  return values;
}
