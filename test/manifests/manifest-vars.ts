import type { ManifestVars, WindowsVersion } from '../../src/manifests/index.js';
import { manifestVarsFromPlanVars } from '../../src/manifests/index.js';
import { buildPlan } from '../../src/plan/index.js';
import { type ClusterSpecInput, clusterSpecSchema } from '../../src/spec/schema.js';
import { loadVersions } from '../../src/versions/versions.js';
import { DEFAULT_KUBERNETES, OLDEST_TESTED_KUBERNETES } from '../helpers/kubernetes-test-versions.js';

/** A mixed static cluster spec; `network` overrides the spec's network section. */
export function mixedSpec(network: ClusterSpecInput['network'] = undefined): ClusterSpecInput {
  return {
    name: 'lab',
    provider: {
      type: 'static',
      hosts: [
        {
          name: 'cp1',
          address: '10.0.0.11',
          group: 'control-plane',
          credentials: { user: 'root', privateKey: { file: '~/.ssh/id_ed25519' } },
        },
        {
          name: 'win1',
          address: '10.0.0.13',
          group: 'windows',
          credentials: { user: 'Administrator', password: { env: 'WIN_PASSWORD' } },
        },
      ],
    },
    nodes: { controlPlane: { count: 1 }, workers: [{ name: 'windows', os: 'windows', count: 1 }] },
    ...(network === undefined ? {} : { network }),
  };
}

/** Manifest vars the way `up` builds them: spec -> plan vars -> manifest vars. */
export function varsFromSpec(
  input: ClusterSpecInput = mixedSpec(),
  windowsVersions: WindowsVersion[] = ['2022'],
): ManifestVars {
  const plan = buildPlan({ spec: clusterSpecSchema.parse(input), versions: loadVersions() });
  return manifestVarsFromPlanVars(plan.vars, {
    kubernetesVersion: String(plan.vars['kubernetes_version']),
    apiServerHost: '10.0.0.11',
    apiServerPort: 6443,
    windowsVersions,
    linuxWorkers: plan.tasks.find((t) => t.name === 'join-linux-workers')?.hosts.length ?? 0,
  });
}

/** A static spec with one Windows Server 2019 and one 2022 worker (two groups: one version each). */
export function twoVersionSpec(): ClusterSpecInput {
  const spec = mixedSpec();
  const password = { user: 'Administrator', password: { env: 'WIN_PASSWORD' } };
  return {
    ...spec,
    provider: {
      type: 'static',
      hosts: [
        ...(spec.provider as { hosts: object[] }).hosts.filter(
          (h) => (h as { group: string }).group !== 'windows',
        ),
        { name: 'win2019', address: '10.0.0.13', group: 'windows-2019', credentials: password },
        { name: 'win2022', address: '10.0.0.14', group: 'windows-2022', credentials: password },
      ],
    } as ClusterSpecInput['provider'],
    nodes: {
      controlPlane: { count: 1 },
      workers: [
        { name: 'windows-2019', os: 'windows', windowsVersion: '2019', count: 1 },
        { name: 'windows-2022', os: 'windows', windowsVersion: '2022', count: 1 },
      ],
    },
  };
}

/** The spec's defaults (VNI 4096, port 4789, 10.244.0.0/16, 10.96.0.0/12, Windows Server 2022). */
export const DEFAULT_VARS: ManifestVars = varsFromSpec();

/**
 * Non-default values everywhere a var reaches a manifest, so tests can tell rendered values
 * from hard-coded ones.
 */
export const OTHER_VARS: ManifestVars = {
  ...varsFromSpec(
    mixedSpec({ podCIDR: '172.20.0.0/16', serviceCIDR: '172.21.0.0/16', flannel: { vni: 4097, port: 4790 } }),
    ['2019'],
  ),
  api_server_host: 'cp.lab.example',
  api_server_port: 8443,
};

/** A cluster with Windows Server 2019 and 2022 workers. */
export const TWO_VERSION_VARS: ManifestVars = varsFromSpec(twoVersionSpec(), ['2019', '2022']);

/** {@link twoVersionSpec} plus a Windows Server 2025 worker, at a given Kubernetes version. */
export function threeVersionSpec(kubernetesVersion: string): ClusterSpecInput {
  const spec = twoVersionSpec();
  const hosts = (spec.provider as { hosts: object[] }).hosts;
  const credentials = { user: 'Administrator', password: { env: 'WIN_PASSWORD' } };
  return {
    ...spec,
    kubernetes: { version: kubernetesVersion },
    provider: {
      type: 'static',
      hosts: [...hosts, { name: 'win2025', address: '10.0.0.15', group: 'windows-2025', credentials }],
    } as ClusterSpecInput['provider'],
    nodes: {
      controlPlane: { count: 1 },
      workers: [
        ...(spec.nodes?.workers ?? []),
        { name: 'windows-2025', os: 'windows', windowsVersion: '2025', count: 1 },
      ],
    },
  };
}

/** The oldest supported Kubernetes release the tests install, with 2019, 2022 and 2025 workers. */
export const OLDEST_VARS: ManifestVars = varsFromSpec(threeVersionSpec(OLDEST_TESTED_KUBERNETES), [
  '2019',
  '2022',
  '2025',
]);

/**
 * The var sets, labelled for test names, each with the Kubernetes version its spec installs (the
 * manifests must validate against that release's schemas).
 */
export const VAR_SETS: ReadonlyArray<[string, ManifestVars, string]> = [
  ['default vars (VNI 4096, port 4789)', DEFAULT_VARS, DEFAULT_KUBERNETES],
  ['other vars (VNI 4097, port 4790, 2019)', OTHER_VARS, DEFAULT_KUBERNETES],
  ['Windows Server 2019 and 2022 workers', TWO_VERSION_VARS, DEFAULT_KUBERNETES],
  [
    `Kubernetes ${OLDEST_TESTED_KUBERNETES}, Windows Server 2019, 2022 and 2025`,
    OLDEST_VARS,
    OLDEST_TESTED_KUBERNETES,
  ],
];
