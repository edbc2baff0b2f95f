import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SpecError, type SpecIssue } from '../../src/errors/index.js';
import { parseSpecText } from '../../src/spec/parse.js';
import { fixtureNames, readFixture, SPEC_FIXTURES } from './fixtures.js';

interface Expected {
  path: string;
  line: number;
  column: number;
  /** A substring of the message. */
  message: string;
}

function issuesOf(name: string): { issues: SpecIssue[]; error: SpecError } {
  const { text, file } = readFixture('invalid', name);
  try {
    parseSpecText(text, file);
  } catch (error) {
    if (error instanceof SpecError) return { issues: error.issues, error };
    throw error;
  }
  throw new Error(`${name} parsed without an error`);
}

describe('invalid spec fixtures', () => {
  it('covers the problems the brief lists', () => {
    const names = fixtureNames('invalid');
    for (const name of [
      'windows-vni-1',
      'windows-port-8472',
      'inline-password',
      'unknown-key',
      'controllers-2',
      'static-host-count',
      'bad-cidr',
      'overlapping-cidrs',
      'yaml-syntax',
      'alias-cycle',
      'ha-without-endpoint',
      'duplicate-names',
      'windows-version-on-linux',
      'several-problems',
      'ec2-missing-operator-cidr',
      'ec2-vpc-overlap',
      'ec2-vpc-without-subnet',
      'ec2-private-created-vpc',
      'ec2-sizing',
      'instance-type-on-libvirt',
      'libvirt-hypervisors',
    ]) {
      expect(names).toContain(name);
    }
  });

  it.each(fixtureNames('invalid'))('%s yields exactly the expected issues', (name) => {
    const sidecar = `${SPEC_FIXTURES}invalid/${name}.expected.json`;
    expect(existsSync(sidecar), `${name}.expected.json`).toBe(true);
    const expected = (JSON.parse(readFileSync(sidecar, 'utf8')) as { issues: Expected[] }).issues;
    const { issues, error } = issuesOf(name);
    expect(issues.map((i) => `${i.path}@${i.line}:${i.column}`)).toEqual(
      expected.map((e) => `${e.path}@${e.line}:${e.column}`),
    );
    issues.forEach((issue, i) => {
      expect(issue.file).toBe(readFixture('invalid', name).file);
      expect(issue.message).toContain(expected[i]?.message);
      expect(issue.message).not.toContain('\n');
    });
    // One line per issue, `file:line:col: path: message`, and no stack trace in the message.
    const lines = error.message.split('\n');
    expect(lines).toHaveLength(issues.length);
    expect(
      lines[0]?.startsWith(`${readFixture('invalid', name).file}:${issues[0]?.line}:${issues[0]?.column}: `),
    ).toBe(true);
    expect(error.message).not.toMatch(/\n\s+at /);
    expect(error.exitCode).toBe(2);
  });

  it('explains why Windows workers need VNI 4096 and port 4789', () => {
    expect(issuesOf('windows-vni-1').issues[0]?.message).toContain(
      'Windows overlay networking (HNS) requires VNI >= 4096',
    );
    expect(issuesOf('windows-port-8472').issues[0]?.message).toContain('requires UDP port 4789');
  });

  it('accepts VNI 1 and port 8472 when no Windows worker is planned', () => {
    const text = [
      'name: linux-only',
      'network: { flannel: { vni: 1, port: 8472 } }',
      'provider: { type: libvirt }',
      'nodes:',
      '  workers:',
      '    - { name: lin, os: linux, count: 2 }',
      '    - { name: win, os: windows, count: 0 }',
    ].join('\n');
    expect(parseSpecText(text, 'linux-only.yaml').network.flannel).toEqual({
      backend: 'vxlan',
      vni: 1,
      port: 8472,
    });
  });

  it('reports every problem of a spec at once, in source order', () => {
    const { issues } = issuesOf('several-problems');
    expect(issues.length).toBeGreaterThanOrEqual(10);
    const positions = issues.map((i) => (i.line ?? 0) * 1000 + (i.column ?? 0));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });

  it('points at the nearest existing parent when the path is missing', () => {
    const issue = issuesOf('ha-without-endpoint').issues[0];
    expect(issue).toMatchObject({ path: 'nodes.controlPlane.endpoint', line: 9, column: 3 });
  });
});
