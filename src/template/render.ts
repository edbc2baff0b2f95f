import { KubemixError } from '../errors/index.js';
import { FILTERS, FilterError, pythonTruthy, TESTS } from './filters.js';
import { lookup } from './lookups.js';
import { installMemberGuard } from './member-guard.js';
import { type NjEnvironment, type NjTemplate, nunjucks, transformer } from './nunjucks-internals.js';
import { installPythonMethods } from './python-methods.js';
import { STRICT_GLOBAL, strictify } from './strict-transform.js';

/**
 * A template that cannot be rendered: an undefined variable (named, like Ansible's
 * "'x' is undefined"), a syntax error, or a filter given bad input.
 */
export class TemplateRenderError extends KubemixError {
  /** The undefined variable, when that is the problem. */
  readonly variable?: string;
  constructor(message: string, options: { variable?: string; cause?: unknown } = {}) {
    super(message, { exitCode: 1, cause: options.cause });
    if (options.variable !== undefined) this.variable = options.variable;
  }
}

const CAPTURE_GLOBAL = '__kmx_capture';
const NOT_CAPTURED = Symbol('not captured');

interface RenderState {
  captured: unknown;
  missing?: string;
}
let state: RenderState = { captured: NOT_CAPTURED };

function createEnvironment(): NjEnvironment {
  installPythonMethods();
  installMemberGuard();
  // trimBlocks: Ansible renders with trim_blocks=True, so `{% for %}` lines leave no blank line.
  const env = new (nunjucks().Environment)([], {
    autoescape: false,
    throwOnUndefined: false,
    trimBlocks: true,
  });
  for (const [name, fn] of Object.entries(FILTERS)) env.addFilter(name, fn);
  for (const [name, fn] of Object.entries(TESTS)) env.addTest(name, fn);
  // Jinja's capitalised literals, which Ansible users write all the time.
  env.addGlobal('True', true);
  env.addGlobal('False', false);
  env.addGlobal('None', null);
  env.addGlobal(STRICT_GLOBAL, (value: unknown, name: string) => {
    if (value === undefined) {
      state.missing = name;
      throw new TemplateRenderError(`'${name}' is undefined`, { variable: name });
    }
    return value;
  });
  env.addGlobal(CAPTURE_GLOBAL, (value: unknown) => {
    state.captured = value;
    return '';
  });
  env.addGlobal('lookup', lookup);
  return env;
}

let environment: NjEnvironment | undefined;
/** The one environment, made at the first render: importing this module loads no nunjucks. */
const env = (): NjEnvironment => {
  environment ??= createEnvironment();
  return environment;
};
const cache = new Map<string, NjTemplate>();
const CACHE_LIMIT = 5000;

function compile(source: string, display = source): NjTemplate {
  let template = cache.get(source);
  if (template) return template;
  try {
    const ast = strictify(nunjucks().parser.parse(source, [], env().opts));
    const compiler = new (nunjucks().compiler.Compiler)('template', false);
    compiler.compile(transformer().transform(ast, env().asyncFilters, 'template'));
    const props = new Function(compiler.getCode())();
    template = new (nunjucks().Template)({ type: 'code', obj: props }, env(), 'template', true);
  } catch (error) {
    throw translate(error, display);
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(source, template);
  return template;
}

let contextPrototype: object | undefined;

/**
 * A nunjucks Context over `vars` without copying it: nunjucks' own Template.render copies every
 * key, which would evaluate every lazy variable. Top-level `{% set %}` writes go to a child object.
 */
function contextFor(vars: object): object {
  if (!contextPrototype) {
    let grabbed: object | undefined;
    env().addGlobal('__kmx_grab', function (this: object) {
      grabbed = Object.getPrototypeOf(this) as object;
      return '';
    });
    const probe = compile('{{ __kmx_grab() }}');
    probe.render({});
    contextPrototype = grabbed;
    if (!contextPrototype) throw new Error('nunjucks context prototype not found');
  }
  return Object.assign(Object.create(contextPrototype) as object, {
    env: env(),
    ctx: Object.create(vars),
    blocks: {},
    exported: [],
  });
}

function findOwnError(error: unknown): TemplateRenderError | FilterError | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 10; depth++) {
    if (current instanceof TemplateRenderError || current instanceof FilterError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function excerpt(source: string): string {
  const oneLine = source.replace(/\s+/g, ' ').trim();
  return oneLine.length > 120 ? `${oneLine.slice(0, 117)}...` : oneLine;
}

function translate(error: unknown, source: string): TemplateRenderError {
  const own = findOwnError(error);
  if (own instanceof TemplateRenderError) return own;
  if (own) return new TemplateRenderError(`${own.message} (in "${excerpt(source)}")`, { cause: error });
  const message = (error instanceof Error ? error.message : String(error))
    .replace(/^\(template\)\s*/, '')
    .replace(/\s*\n\s*/g, ' ')
    .trim();
  return new TemplateRenderError(`template error in "${excerpt(source)}": ${message}`, { cause: error });
}

function run(source: string, vars: object, display = source): { output: string; captured: unknown } {
  const template = compile(source, display);
  const saved = state;
  state = { captured: NOT_CAPTURED };
  try {
    let failure: unknown;
    let output = '';
    const frame = new (nunjucks().runtime.Frame)() as { topLevel?: boolean };
    frame.topLevel = true;
    template.rootRenderFunc(env(), contextFor(vars), frame, nunjucks().runtime, (err, res) => {
      failure = err;
      output = res;
    });
    if (failure) throw translate(failure, display);
    return { output, captured: state.captured };
  } finally {
    state = saved;
  }
}

/** True when a string holds Jinja syntax and must go through the template engine. */
export function isTemplate(value: string): boolean {
  return value.includes('{{') || value.includes('{%') || value.includes('{#');
}

// No whitespace around: "{{ x }}\n" is text (it keeps its newline), "{{ x }}" is the value of x.
const SINGLE_EXPRESSION = /^\{\{-?([\s\S]*?)-?\}\}$/;

/** Renders a template string to text. Undefined variables fail with a TemplateRenderError naming them. */
export function renderString(source: string, vars: Record<string, unknown>): string {
  if (!isTemplate(source)) return source;
  return run(source, vars).output;
}

/** Evaluates a bare Jinja expression (`result.rc != 0`, `groups['web']`) and returns its native value. */
export function evaluateExpression(expression: string, vars: Record<string, unknown>): unknown {
  const { captured } = run(`{{ ${CAPTURE_GLOBAL}((${expression})) }}`, vars, expression.trim());
  return captured === NOT_CAPTURED ? undefined : captured;
}

/**
 * Renders every string inside a value (objects and arrays recursively). A string that is
 * exactly one `{{ expression }}` keeps the expression's native type (list, dict, number,
 * boolean), as Ansible does; other strings render to text.
 */
export function renderValue<T = unknown>(value: T, vars: Record<string, unknown>): T {
  if (typeof value === 'string') {
    if (!isTemplate(value)) return value;
    const single = SINGLE_EXPRESSION.exec(value);
    if (single && !single[1]!.includes('}}') && !single[1]!.includes('{{')) {
      const result = evaluateExpression(single[1]!, vars);
      return (result === undefined ? '' : result) as T;
    }
    return run(value, vars).output as T;
  }
  if (Array.isArray(value)) return value.map((item) => renderValue(item, vars)) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[renderValue(key, vars)] = renderValue(item, vars);
    return out as T;
  }
  return value;
}

/**
 * Evaluates a `when` / `changed_when` / `failed_when` / `until` condition: a bare Jinja
 * expression (`rc != 0`, `x is defined`, `'ok' in result.stdout`), a boolean, or a list of
 * conditions that must all hold. Truthiness follows Python (empty list or dict is false).
 */
export function evaluateCondition(condition: unknown, vars: Record<string, unknown>): boolean {
  if (Array.isArray(condition)) return condition.every((c) => evaluateCondition(c, vars));
  if (typeof condition === 'boolean') return condition;
  if (condition === null || condition === undefined) return true;
  if (typeof condition === 'number') return condition !== 0;
  if (typeof condition !== 'string')
    throw new TemplateRenderError(`a condition must be a string or a boolean, got ${typeof condition}`);
  let expression = condition.trim();
  const single = SINGLE_EXPRESSION.exec(expression);
  // Ansible accepts (and warns about) `when: "{{ x }}"`: the inner expression is the condition.
  if (single && !single[1]!.includes('{{')) expression = single[1]!.trim();
  else if (isTemplate(expression)) expression = run(expression, vars).output.trim();
  if (expression === '') return false;
  const value = evaluateExpression(expression, vars);
  if (typeof value === 'string' && ['false', 'no', 'off'].includes(value.trim().toLowerCase())) return false;
  return pythonTruthy(value);
}
