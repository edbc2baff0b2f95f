import { describe, expect, it } from 'vitest';
import { renderJsonPath } from '../../fixtures/lab/standins/tools/jsonpath.js';

const list = {
  items: [
    {
      metadata: { name: 'a' },
      status: {
        conditions: [
          { type: 'Ready', status: 'True' },
          { type: 'X', status: 'False' },
        ],
      },
    },
    { metadata: { name: 'b' }, status: { conditions: [{ type: 'Ready', status: 'False' }] } },
  ],
};

describe('kubectl jsonpath subset', () => {
  it('fields, wildcards, indexes and filters', () => {
    expect(renderJsonPath('{.items[*].metadata.name}', list)).toBe('a b');
    expect(renderJsonPath('{.items[0].metadata.name}', list)).toBe('a');
    expect(renderJsonPath('{.items[-1].metadata.name}', list)).toBe('b');
    expect(renderJsonPath('{.items[*].status.conditions[?(@.type=="Ready")].status}', list)).toBe(
      'True False',
    );
  });

  it('range, literals and escaped dots', () => {
    expect(renderJsonPath('{range .items[*]}{.metadata.name}{"\\n"}{end}', list)).toBe('a\nb\n');
    expect(renderJsonPath('{.data.net-conf\\.json}', { data: { 'net-conf.json': '{"VNI":4096}' } })).toBe(
      '{"VNI":4096}',
    );
    expect(renderJsonPath('name: {.metadata.name}', { metadata: { name: 'x' } })).toBe('name: x');
  });
});
