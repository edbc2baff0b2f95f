import { describe, expect, it } from 'vitest';
import {
  evaluateCondition,
  evaluateExpression,
  renderString,
  renderValue,
  TemplateRenderError,
} from '../../src/template/index.js';

const vars = {
  n: 5,
  list: [1, 2, 3],
  dict: { a: 'x', nested: { b: true } },
  result: { rc: 2, stdout: 'all systems go', failed: true, changed: false },
  text: 'Hello World',
  empty: [],
};

describe('renderValue', () => {
  it('keeps the native type of a single expression', () => {
    expect(renderValue('{{ list }}', vars)).toEqual([1, 2, 3]);
    expect(renderValue('{{ dict }}', vars)).toEqual(vars.dict);
    expect(renderValue('{{ n + 1 }}', vars)).toBe(6);
    expect(renderValue('{{ dict.nested.b }}', vars)).toBe(true);
    expect(renderValue("{{ {'k': n} }}", vars)).toEqual({ k: 5 });
  });

  it('renders mixed text to a string and recurses into objects and arrays', () => {
    expect(renderValue('n={{ n }} a={{ dict.a }}', vars)).toBe('n=5 a=x');
    expect(renderValue({ key: ['{{ n }}', 'plain', { deep: '{{ text | lower }}' }] }, vars)).toEqual({
      key: [5, 'plain', { deep: 'hello world' }],
    });
    expect(renderValue(42, vars)).toBe(42);
  });

  it('fails on undefined variables, naming them', () => {
    expect(() => renderValue('echo {{ nope }}', vars)).toThrow("'nope' is undefined");
    expect(() => renderValue('{{ dict.missing }}', vars)).toThrow("'dict.missing' is undefined");
    expect(() => renderValue('{{ nope.deeper }}', vars)).toThrow("'nope' is undefined");
    expect(() => renderValue('{{ nope | upper }}', vars)).toThrow(TemplateRenderError);
    try {
      renderValue('{{ nope }}', vars);
    } catch (error) {
      expect((error as TemplateRenderError).variable).toBe('nope');
    }
  });

  it('lets default() and `is defined` see undefined values', () => {
    expect(renderValue("{{ nope | default('z') }}", vars)).toBe('z');
    expect(renderValue('{{ nope.a.b | d(7) }}', vars)).toBe(7);
    expect(renderValue("{{ '' | default('e', true) }}", vars)).toBe('e');
    expect(renderString('{% if nope is defined %}{{ nope }}{% else %}none{% endif %}', vars)).toBe('none');
  });

  it('reports syntax errors with the template text', () => {
    expect(() => renderValue('{{ n + }}', vars)).toThrow(/template error in "n \+"/);
  });
});

describe('filters', () => {
  const r = (expr: string) => renderValue(`{{ ${expr} }}`, vars);
  it('converts data', () => {
    expect(r('dict | to_json')).toBe('{"a":"x","nested":{"b":true}}');
    expect(r('\'{"a": [1]}\' | from_json')).toEqual({ a: [1] });
    expect(r('dict | to_yaml')).toBe('a: x\nnested:\n  b: true\n');
    expect(r("'aGVsbG8=' | b64decode")).toBe('hello');
    expect(r("'hello' | b64encode")).toBe('aGVsbG8=');
  });
  it('handles regexes with Python syntax', () => {
    expect(r("'v1.2.3' | regex_replace('^v(\\\\d+)\\\\..*$', 'major \\\\1')")).toBe('major 1');
    expect(r("text | regex_search('W\\\\w+')")).toBe('World');
    expect(r("text | regex_search('nothing')")).toBeNull();
  });
  it('casts and quotes', () => {
    expect(r("'yes' | bool")).toBe(true);
    expect(r("'off' | bool")).toBe(false);
    expect(r("'42' | int")).toBe(42);
    expect(r("'x' | int")).toBe(0);
    expect(r('"it\'s" | quote')).toBe(`'it'\\''s'`);
    expect(r("'/etc/kubernetes/admin.conf' | basename")).toBe('admin.conf');
    expect(r("'/etc/kubernetes/admin.conf' | dirname")).toBe('/etc/kubernetes');
    expect(r('list | join(",")')).toBe('1,2,3');
    expect(r("'  x ' | trim")).toBe('x');
    expect(r('list | length')).toBe(3);
    expect(r('text | upper')).toBe('HELLO WORLD');
  });
  it('mandatory fails on undefined values', () => {
    expect(() => r('nope | mandatory')).toThrow("'nope' is undefined");
    expect(r('n | mandatory')).toBe(5);
  });
});

describe('evaluateCondition', () => {
  const c = (expr: unknown) => evaluateCondition(expr, vars);
  it('evaluates Ansible conditionals', () => {
    expect(c('result.rc != 0')).toBe(true);
    expect(c("'systems' in result.stdout")).toBe(true);
    expect(c("'down' not in result.stdout")).toBe(true);
    expect(c('nope is defined')).toBe(false);
    expect(c('nope is not defined')).toBe(true);
    expect(c('result is failed and result is not changed')).toBe(true);
    expect(c('not (n > 3) or False')).toBe(false);
    expect(c('empty')).toBe(false);
    expect(c('list')).toBe(true);
    expect(c("text is match('Hello')")).toBe(true);
  });
  it('accepts booleans, lists (all must hold) and a wrapped {{ }}', () => {
    expect(c(true)).toBe(true);
    expect(c(['n == 5', 'list | length == 3'])).toBe(true);
    expect(c(['n == 5', 'n == 6'])).toBe(false);
    expect(c('{{ n == 5 }}')).toBe(true);
  });
  it('fails on undefined variables', () => {
    expect(() => c('nope')).toThrow("'nope' is undefined");
  });
});

describe('evaluateExpression', () => {
  it('returns native values and supports Python string methods', () => {
    expect(evaluateExpression("text.startswith('Hello')", vars)).toBe(true);
    expect(evaluateExpression('text.split()', vars)).toEqual(['Hello', 'World']);
    // Python's maxsplit keeps the rest whole, unlike JavaScript's limit.
    expect(evaluateExpression("'--a=b=c'.split('=', 1)", vars)).toEqual(['--a', 'b=c']);
    expect(evaluateExpression("'x y  z'.split(None, 1)", vars)).toEqual(['x', 'y  z']);
    expect(evaluateExpression('dict.keys() | list', vars)).toEqual(['a', 'nested']);
  });
});
