import { describe, expect, it } from 'vitest';
import { buildPlan } from '../../src/plan/index.js';
import { clusterSpecSchema } from '../../src/spec/schema.js';
import { loadVersions } from '../../src/versions/versions.js';

const spec = (address: string, endpoint?: string) =>
  clusterSpecSchema.parse({
    name: 'lab',
    provider: { type: 'static', hosts: [{ name: 'cp1', address, group: 'control-plane' }] },
    nodes: { controlPlane: { count: 1, ...(endpoint ? { endpoint } : {}) } },
  });

const endpointOf = (address: string, endpoint?: string) =>
  buildPlan({ spec: spec(address, endpoint), versions: loadVersions() }).vars['control_plane_endpoint'];

describe('the API server endpoint of a plan', () => {
  it('is the first controller on 6443 unless the spec names one; IPv6 hosts in brackets', () => {
    expect(endpointOf('10.0.0.11')).toBe('10.0.0.11:6443');
    expect(endpointOf('fd00::11')).toBe('[fd00::11]:6443');
    expect(endpointOf('10.0.0.11', 'api.lab.example')).toBe('api.lab.example:6443');
    expect(endpointOf('10.0.0.11', 'api.lab.example:8443')).toBe('api.lab.example:8443');
    expect(endpointOf('fd00::11', '[fd00::100]:6443')).toBe('[fd00::100]:6443');
  });
});
