import { describe, expect, it } from 'vitest';
import {
  MANIFEST_NAMES,
  ManifestError,
  type ManifestVars,
  renderManifest,
  renderManifestObjects,
  renderTemplateSource,
} from '../../src/manifests/index.js';
import { formatManifestProblems, validateManifestObjects } from '../helpers/validate-manifests.js';
import { DEFAULT_VARS, VAR_SETS } from './manifest-vars.js';

const EXPECTED_OBJECTS: Record<(typeof MANIFEST_NAMES)[number], string[]> = {
  // In upstream's order (flannel Documentation/kube-flannel.yml; flannel-upstream.test.ts).
  'kube-flannel': [
    'Namespace kube-flannel',
    'ClusterRole flannel',
    'ClusterRoleBinding flannel',
    'ServiceAccount kube-flannel/flannel',
    'ConfigMap kube-flannel/kube-flannel-cfg',
    'DaemonSet kube-flannel/kube-flannel-ds',
  ],
  'kube-flannel-windows': [
    'ConfigMap kube-flannel/kube-flannel-windows-cfg',
    'DaemonSet kube-flannel/kube-flannel-ds-windows-amd64',
  ],
  'kube-proxy-windows': [
    'ConfigMap kube-system/kube-proxy-windows',
    'DaemonSet kube-system/kube-proxy-windows',
  ],
  runtimeclasses: [],
  'win-webserver': ['Service default/win-webserver'],
  'linux-netexec': [
    'DaemonSet default/linux-netexec',
    'Deployment default/linux-netexec-client',
    'Service default/linux-netexec',
  ],
};

/** The objects a manifest renders for these vars: the per-version ones first, then the fixed ones. */
function expectedObjects(name: (typeof MANIFEST_NAMES)[number], vars: ManifestVars): string[] {
  const workloads = vars.windows_workloads;
  if (name === 'runtimeclasses') return workloads.map((w) => `RuntimeClass windows-${w.version}`);
  if (name === 'win-webserver')
    return [
      ...workloads.map((w) => `Deployment default/win-webserver-${w.version}`),
      ...EXPECTED_OBJECTS[name],
    ];
  return EXPECTED_OBJECTS[name];
}

describe.each(VAR_SETS)('every manifest with %s', (_label, vars, kubernetesVersion) => {
  it.each(MANIFEST_NAMES)(
    "%s renders the expected objects, all valid against the schemas of the spec's Kubernetes release",
    (name) => {
      const objects = renderManifestObjects(name, vars);
      expect(
        objects.map(
          (o) => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`,
        ),
      ).toEqual(expectedObjects(name, vars));
      const problems = validateManifestObjects(objects, { kubernetesVersion });
      expect(problems, formatManifestProblems(problems)).toEqual([]);
    },
  );

  it.each(MANIFEST_NAMES)('%s labels every object and pod template managed-by kubemix', (name) => {
    for (const obj of renderManifestObjects(name, vars)) {
      expect(obj.metadata.labels?.['app.kubernetes.io/managed-by'], `${obj.kind} ${obj.metadata.name}`).toBe(
        'kubemix',
      );
      const template = (
        obj['spec'] as { template?: { metadata?: { labels?: Record<string, string> } } } | undefined
      )?.template;
      if (template) expect(template.metadata?.labels?.['app.kubernetes.io/managed-by']).toBe('kubemix');
    }
  });

  it.each(MANIFEST_NAMES)('%s leaves no template syntax in its output', (name) => {
    expect(renderManifest(name, vars)).not.toMatch(/\{\{|\{%|\{#/);
  });
});

describe('missing or bad vars', () => {
  const without = (path: string): ManifestVars => {
    const copy = structuredClone(DEFAULT_VARS) as unknown as Record<string, Record<string, unknown>>;
    const [top, sub] = path.split('.') as [string, string | undefined];
    if (sub === undefined) delete copy[top];
    else delete copy[top]![sub];
    return copy as unknown as ManifestVars;
  };

  it.each([
    ['kube-flannel', 'flannel_vni'],
    ['kube-flannel', 'images.flannel_cni_plugin'],
    ['kube-flannel-windows', 'api_server_host'],
    ['kube-flannel-windows', 'service_cidr'],
    ['kube-proxy-windows', 'images.windows_kube_proxy'],
    ['win-webserver', 'windows_workloads'],
  ] as const)('%s without %s fails with a message naming the variable', (name, variable) => {
    let error: unknown;
    try {
      renderManifest(name, without(variable));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ManifestError);
    expect((error as ManifestError).message).toMatch(
      new RegExp(`^${name}\\.yaml: variable "${variable}" is missing: expected `),
    );
    expect((error as ManifestError).variable).toBe(variable);
  });

  it('names a malformed value and what was expected', () => {
    expect(() => renderManifest('kube-flannel', { ...DEFAULT_VARS, flannel_port: 70000 })).toThrow(
      'kube-flannel.yaml: variable "flannel_port" is invalid (70000): expected a port number 1-65535',
    );
    expect(() => renderManifest('kube-flannel', { ...DEFAULT_VARS, pod_cidr: '10.244.0.0' })).toThrow(
      'variable "pod_cidr" is invalid ("10.244.0.0"): expected a CIDR such as 10.244.0.0/16',
    );
  });

  it('rejects an unknown manifest name', () => {
    expect(() => renderManifest('kube-dns' as never, DEFAULT_VARS)).toThrow(
      'kube-dns.yaml: unknown manifest',
    );
  });
});

describe('renderTemplateSource (throwOnUndefined)', () => {
  it('names an undefined variable and the template line, even behind a filter', () => {
    const source = 'a: 1\nb: {{ images.nope | dump }}\n';
    const error = (() => {
      try {
        renderTemplateSource(source, { images: {} }, 'x.yaml.j2');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ManifestError);
    expect((error as ManifestError).message).toBe('x.yaml.j2:2: variable "images.nope" is undefined');
    expect((error as ManifestError).variable).toBe('images.nope');
  });

  it('names the second of two expressions on a line when that one is undefined', () => {
    expect(() => renderTemplateSource('v: "{{ a }}-{{ b }}"\n', { a: 1 }, 'y.j2')).toThrow(
      'y.j2:1: variable "b" is undefined',
    );
  });

  it('reports template syntax errors with file and line', () => {
    expect(() => renderTemplateSource('ok: 1\nbad: {{ a b }}\n', { a: 1, b: 2 }, 'z.j2')).toThrow(
      /^z\.j2:2: template error: /,
    );
  });
});
