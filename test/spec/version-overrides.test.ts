import { describe, expect, it } from 'vitest';
import { SpecError } from '../../src/errors/index.js';
import { validateSpecInput } from '../../src/spec/index.js';

// `versions:` takes any entry of playbooks/versions.yaml, containerd's minimum rows among them,
// whose names hold the Kubernetes minor (containerd-minimum-1.37).
const spec = (versions: Record<string, string>) => ({
  name: 'lab',
  provider: { type: 'static', hosts: [{ name: 'cp1', address: '192.0.2.10', group: 'control-plane' }] },
  nodes: {
    controlPlane: { count: 1, credentials: { user: 'root', privateKey: { file: '/k' } } },
    workers: [],
  },
  versions,
});

const issues = (input: unknown) => {
  try {
    validateSpecInput(input, { file: 'spec.yaml' });
    return [];
  } catch (error) {
    if (error instanceof SpecError) return error.issues.map((i) => `${i.path}: ${i.message}`);
    throw error;
  }
};

describe('versions overrides', () => {
  it("take an entry name with the minor's dot: containerd's minimum row", () => {
    expect(issues(spec({ 'containerd-minimum-1.37': '2.4.0 2.3.0' }))).toEqual([]);
  });

  it('refuse a minimum row that is not X.Y.Z per branch', () => {
    expect(issues(spec({ 'containerd-minimum-1.37': '2.4 or newer' }))).toEqual([
      'versions.containerd-minimum-1.37: must be containerd versions X.Y.Z, one per release branch, separated by spaces (e.g. "2.4.0 2.3.0")',
    ]);
  });

  it('refuse a name that is not an entry name', () => {
    expect(issues(spec({ 'Containerd Minimum': '2.4.0' }))).toEqual([
      expect.stringMatching(/^versions\.Containerd Minimum: /),
    ]);
  });
});
