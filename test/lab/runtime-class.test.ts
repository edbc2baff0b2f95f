import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../fixtures/lab/cluster-state.js';
import { admitRuntimeClass, mergeTolerations } from '../../fixtures/lab/state/runtime-class.js';
import { renderManifestObjects, windowsWorkloads } from '../../src/manifests/index.js';
import { initialisedState, labManifestVars } from './helpers.js';

// The RuntimeClass admission plugin (kubernetes plugin/pkg/admission/runtimeclass/admission.go)
// against kubemix's own RuntimeClasses, rendered from the template.
const runtimeClasses = (): Record<string, KubeObject> =>
  Object.fromEntries(
    renderManifestObjects('runtimeclasses', {
      ...labManifestVars(),
      windows_workloads: windowsWorkloads(['2019', '2022']),
    }).map((o) => [`node.k8s.io/RuntimeClass//${o.metadata.name}`, o as KubeObject]),
  );
const windowsToleration = { key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' };

describe('RuntimeClass admission', () => {
  it('passes a pod without runtimeClassName unchanged', () => {
    const spec = { nodeSelector: { a: 'b' }, containers: [{ name: 'c' }] };
    expect(admitRuntimeClass(spec, runtimeClasses())).toEqual({ spec });
  });

  it("merges the RuntimeClass's nodeSelector into the pod's and appends its tolerations", () => {
    const admitted = admitRuntimeClass(
      {
        runtimeClassName: 'windows-2019',
        nodeSelector: { 'kubernetes.io/os': 'windows', tier: 'web' },
        tolerations: [{ key: 'dedicated', operator: 'Exists' }],
      },
      runtimeClasses(),
    );
    expect(admitted).toEqual({
      spec: {
        runtimeClassName: 'windows-2019',
        nodeSelector: {
          'kubernetes.io/os': 'windows',
          tier: 'web',
          'kubernetes.io/arch': 'amd64',
          'node.kubernetes.io/windows-build': '10.0.17763',
        },
        tolerations: [{ key: 'dedicated', operator: 'Exists' }, windowsToleration],
      },
    });
  });

  it('rejects a pod whose nodeSelector conflicts, with the API server text', () => {
    expect(
      admitRuntimeClass(
        {
          runtimeClassName: 'windows-2022',
          nodeSelector: { 'node.kubernetes.io/windows-build': '10.0.17763' },
        },
        runtimeClasses(),
      ),
    ).toEqual({
      forbidden:
        'conflict: runtimeClass.scheduling.nodeSelector[node.kubernetes.io/windows-build] = 10.0.20348; pod.spec.nodeSelector[node.kubernetes.io/windows-build] = 10.0.17763',
    });
  });

  it('rejects an unknown RuntimeClass', () => {
    expect(admitRuntimeClass({ runtimeClassName: 'windows-2025' }, runtimeClasses())).toEqual({
      forbidden: 'pod rejected: RuntimeClass "windows-2025" not found',
    });
  });

  it('merges tolerations as pkg/util/tolerations does: duplicates and covered ones dropped', () => {
    expect(mergeTolerations([windowsToleration], [windowsToleration])).toEqual([windowsToleration]);
    // An Exists toleration with no key covers everything.
    expect(mergeTolerations([{ operator: 'Exists' }], [windowsToleration])).toEqual([{ operator: 'Exists' }]);
    // Exists on the key covers an Equal on the same key and effect.
    expect(
      mergeTolerations([windowsToleration], [{ key: 'os', operator: 'Exists', effect: 'NoSchedule' }]),
    ).toEqual([{ key: 'os', operator: 'Exists', effect: 'NoSchedule' }]);
    expect(mergeTolerations([{ key: 'a', operator: 'Exists' }], [windowsToleration])).toEqual([
      { key: 'a', operator: 'Exists' },
      windowsToleration,
    ]);
  });

  it("a Deployment naming an unknown RuntimeClass gets no pods; its ReplicaSet reports the controller's FailedCreate", async () => {
    const { state } = await initialisedState();
    await state.applyObject({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { runtimeClassName: 'windows-2019', containers: [{ name: 'web', image: 'nginx' }] },
        },
      },
    });
    expect((await state.pods('default')).filter((p) => p.metadata.name.startsWith('web-'))).toEqual([]);
    const failed = (await state.events('default')).filter((e) => e.reason === 'FailedCreate');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.object).toMatch(/^replicaset\/web-[a-z0-9]{10}$/);
    expect(failed[0]!.message).toBe(
      `Error creating: pods "${failed[0]!.object.slice('replicaset/'.length)}-" is forbidden: pod rejected: RuntimeClass "windows-2019" not found`,
    );
  });
});
