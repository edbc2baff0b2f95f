import { describe, expect, it } from 'vitest';
import { SpecError } from '../../src/errors/index.js';
import { validateSpecInput } from '../../src/spec/index.js';
import { kubernetesSupport } from '../../src/versions/kubernetes-support.js';
import { loadVersions } from '../../src/versions/versions.js';

const spec = (extra: Record<string, unknown>) => ({
  name: 'lab',
  provider: { type: 'static', hosts: [{ name: 'cp1', address: '192.0.2.10', group: 'control-plane' }] },
  nodes: {
    controlPlane: { count: 1, credentials: { user: 'root', privateKey: { file: '/k' } } },
    workers: [],
  },
  ...extra,
});

const issues = (input: unknown) => {
  try {
    validateSpecInput(input, { file: 'spec.yaml' });
    return [];
  } catch (error) {
    if (error instanceof SpecError) return error.issues;
    throw error;
  }
};

describe('the supported Kubernetes range', () => {
  it('includes the pinned default', () => {
    expect(kubernetesSupport(loadVersions()['kubernetes']!).kind).toBe('supported');
  });

  it('refuses a version below the oldest supported minor with one issue naming the field', () => {
    const found = issues(spec({ kubernetes: { version: '1.34.8' } }));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ path: 'kubernetes.version' });
    expect(found[0]!.message).toMatch(
      /^Kubernetes 1\.34\.8 is older than the oldest version kubemix supports, 1\.35/,
    );
    expect(issues(spec({ versions: { kubernetes: '1.31.2' } }))[0]).toMatchObject({
      path: 'versions.kubernetes',
    });
  });

  it('accepts 1.35 and 1.36, and a newer version with a warning instead of an issue', () => {
    expect(issues(spec({ kubernetes: { version: '1.35.9' } }))).toEqual([]);
    expect(issues(spec({ kubernetes: { version: 'v1.36.4' } }))).toEqual([]);
    expect(issues(spec({ kubernetes: { version: '1.37.1' } }))).toEqual([]);
    expect(kubernetesSupport('1.37.1')).toMatchObject({
      kind: 'untested',
      message: expect.stringContaining(
        'Kubernetes 1.37.1 is newer than kubemix has been tested with (1.35 to 1.36)',
      ),
    });
  });
});
