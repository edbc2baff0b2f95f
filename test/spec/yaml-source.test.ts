import { describe, expect, it } from 'vitest';
import { SpecError, type SpecIssue } from '../../src/errors/index.js';
import { parseSpecText } from '../../src/spec/parse.js';
import { parseYamlSource } from '../../src/spec/yaml-source.js';

function issuesOf(lines: string[]): SpecIssue[] {
  try {
    parseSpecText(lines.join('\n'), 'spec.yaml');
  } catch (error) {
    if (error instanceof SpecError) return error.issues;
    throw error;
  }
  throw new Error('parsed without an error');
}

describe('YAML source handling', () => {
  it('locates values, keys, list items and missing paths', () => {
    const { locate } = parseYamlSource(
      ['name: a', 'nodes:', '  workers:', '    - name: w', '      count: 3'].join('\n'),
      'x.yaml',
    );
    expect(locate(['name'])).toEqual({ line: 1, column: 7 });
    expect(locate(['nodes', 'workers', 0, 'count'])).toEqual({ line: 5, column: 14 });
    expect(locate(['nodes', 'workers', 0, 'count'], { key: true })).toEqual({ line: 5, column: 7 });
    expect(locate(['nodes', 'workers', 0])).toEqual({ line: 4, column: 7 });
    expect(locate(['nodes', 'controlPlane', 'count'])).toEqual({ line: 2, column: 1 });
    expect(locate(['nodes', 'workers', 5, 'name'])).toEqual({ line: 3, column: 3 });
    expect(locate([])).toEqual({ line: 1, column: 1 });
  });

  it('tells how to write numbers YAML reads where strings are expected', () => {
    const issues = issuesOf([
      'name: n',
      'kubernetes: { version: 1.31 }',
      "provider: { type: libvirt, images: { windows: { source: 'https://isos.example/ws.iso', sha256: '" +
        'a'.repeat(64) +
        "' } } }",
      'nodes: { workers: [ { name: w, os: windows, count: 1, windowsVersion: 2022 } ] }',
    ]);
    expect(issues.map((i) => [i.path, i.message])).toEqual([
      ['kubernetes.version', 'must be a string, got a number (put it in quotes)'],
      [
        'nodes.workers.0.windowsVersion',
        'must be one of "2019", "2022", "2025", written as a string (put it in quotes)',
      ],
    ]);
  });

  it('refuses a second YAML document and duplicate keys with their position', () => {
    expect(issuesOf(['name: a', 'provider: { type: libvirt }', '---', 'name: b'])).toEqual([
      {
        file: 'spec.yaml',
        path: '',
        line: 3,
        column: 1,
        message: 'a spec file holds one YAML document; remove the second "---"',
      },
    ]);
    const duplicate = issuesOf(['name: a', 'name: b', 'provider: { type: libvirt }']);
    expect(duplicate).toHaveLength(1);
    expect(duplicate[0]).toMatchObject({
      line: 2,
      column: 1,
      message: expect.stringContaining('YAML syntax error: Map keys must be unique'),
    });
  });

  it('refuses a document that is not a mapping', () => {
    expect(issuesOf(['- a', '- b'])).toEqual([
      { file: 'spec.yaml', path: '', line: 1, column: 1, message: 'must be a mapping, got a list' },
    ]);
  });

  it('supports anchors and merge keys, and refuses alias bombs', () => {
    const spec = parseSpecText(
      [
        'name: m',
        'nodes:',
        '  controlPlane:',
        '    credentials: &login',
        '      user: root',
        '      privateKey: { file: /root/.ssh/id_ed25519 }',
        'provider:',
        '  type: static',
        '  hosts:',
        '    - { name: cp-01, address: 10.0.0.1, group: control-plane, credentials: { <<: *login, agent: true } }',
      ].join('\n'),
      'merge.yaml',
    );
    if (spec.provider.type !== 'static') throw new Error('expected static');
    expect(spec.provider.hosts[0]?.credentials).toEqual({
      user: 'root',
      privateKey: { file: '/root/.ssh/id_ed25519' },
      agent: true,
    });

    let bomb = 'a: &a [x, x, x, x, x, x, x, x, x]\n';
    for (let i = 0; i < 8; i++)
      bomb += `b${i}: &b${i} [${Array(9)
        .fill(i ? `*b${i - 1}` : '*a')
        .join(', ')}]\n`;
    expect(() => parseSpecText(bomb, 'bomb.yaml')).toThrow(
      /bomb\.yaml:1:1: YAML error: Excessive alias count/,
    );
  });
});
