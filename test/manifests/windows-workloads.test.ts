import { describe, expect, it } from 'vitest';
import { type KubeObject, renderManifestObjects } from '../../src/manifests/index.js';
import { TWO_VERSION_VARS, VAR_SETS } from './manifest-vars.js';

interface Container {
  name: string;
  image: string;
  args?: string[];
  env?: { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
  ports?: { containerPort: number }[];
  volumeMounts?: { name: string; mountPath: string }[];
}
interface PodSpec {
  nodeSelector?: Record<string, string>;
  hostNetwork?: boolean;
  serviceAccountName?: string;
  securityContext?: { windowsOptions?: { hostProcess?: boolean; runAsUserName?: string } };
  tolerations?: Record<string, string>[];
  containers: Container[];
  volumes?: { name: string; configMap?: { name: string } }[];
}
const get = (objects: KubeObject[], kind: string) => {
  const found = objects.find((o) => o.kind === kind);
  if (!found) throw new Error(`no ${kind}`);
  return found;
};
const podSpec = (obj: KubeObject) => (obj['spec'] as { template: { spec: PodSpec } }).template.spec;
const envOf = (c: Container) =>
  Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value ?? e.valueFrom?.fieldRef?.fieldPath]));

describe.each(VAR_SETS)('kube-proxy-windows with %s', (_label, vars) => {
  const objects = renderManifestObjects('kube-proxy-windows', vars);
  const ds = get(objects, 'DaemonSet');
  const script = (get(objects, 'ConfigMap')['data'] as Record<string, string>)['run.ps1']!;

  it('is a HostProcess DaemonSet in kube-system on Windows nodes, with KUBE_NETWORK = flannel.<VNI>', () => {
    expect(ds.metadata.namespace).toBe('kube-system');
    const pod = podSpec(ds);
    expect(pod.nodeSelector).toEqual({ 'kubernetes.io/os': 'windows' });
    expect(pod.securityContext?.windowsOptions).toEqual({
      hostProcess: true,
      runAsUserName: 'NT AUTHORITY\\system',
    });
    expect(pod.hostNetwork).toBe(true);
    expect(pod.serviceAccountName).toBe('kube-proxy');
    const container = pod.containers[0]!;
    expect(container.image).toBe(vars.images.windows_kube_proxy);
    expect(envOf(container)).toMatchObject({
      KUBE_NETWORK: `flannel.${vars.flannel_vni}`,
      NODE_NAME: 'spec.nodeName',
    });
  });

  it("mounts kubeadm's kube-proxy ConfigMap (kubeconfig.conf) where the script reads it", () => {
    const pod = podSpec(ds);
    expect(pod.volumes).toContainEqual({ name: 'kube-proxy', configMap: { name: 'kube-proxy' } });
    expect(pod.containers[0]!.volumeMounts).toContainEqual({
      name: 'kube-proxy',
      mountPath: '/var/lib/kube-proxy',
    });
    expect(script).toContain("(Join-Path $sandbox 'var\\lib\\kube-proxy\\kubeconfig.conf')");
  });

  it('waits for the HNS network, reserves a source VIP with host-local (CNI ADD) and passes it to kube-proxy', () => {
    expect(script).toContain('$networkName = $env:KUBE_NETWORK');
    expect(script).toMatch(/while \(-not \$network\)/);
    expect(script).toContain("$env:CNI_COMMAND = 'ADD'");
    expect(script).toContain('"type": "host-local"');
    expect(script).toContain("& (Join-Path $env:CNI_BIN_PATH 'host-local.exe')");
    const launch = script.split('\n').find((line) => line.startsWith('& $kubeProxy.FullName'));
    expect(launch).toBeDefined();
    for (const flag of [
      '"--hostname-override=$env:NODE_NAME"',
      "'--v=4'",
      "'--proxy-mode=kernelspace'",
      "'--feature-gates=WinOverlay=true'",
      '"--source-vip=$sourceVip"',
      '"--kubeconfig=$kubeconfig"',
    ]) {
      expect(launch).toContain(flag);
    }
  });

  it('keeps the here-string terminator at the start of its line after YAML strips the indentation', () => {
    expect(script).toMatch(/\n"@\n/);
  });
});

describe.each(VAR_SETS)('runtimeclasses with %s', (_label, vars) => {
  const objects = renderManifestObjects('runtimeclasses', vars);

  it('has one RuntimeClass per Windows version of the cluster, selecting its build with the runhcs handler', () => {
    expect(objects.map((o) => o.metadata.name)).toEqual(
      vars.windows_workloads.map((w) => `windows-${w.version}`),
    );
    for (const w of vars.windows_workloads) {
      const rc = objects.find((o) => o.metadata.name === `windows-${w.version}`)!;
      expect(rc['handler']).toBe('runhcs-wcow-process');
      expect(rc['scheduling']).toEqual({
        nodeSelector: {
          'kubernetes.io/os': 'windows',
          'kubernetes.io/arch': 'amd64',
          'node.kubernetes.io/windows-build': w.build,
        },
        tolerations: [{ key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' }],
      });
    }
  });
});

describe.each(VAR_SETS)('win-webserver with %s', (_label, vars) => {
  const objects = renderManifestObjects('win-webserver', vars);
  const deployments = objects.filter((o) => o.kind === 'Deployment');

  it('runs one Deployment of 2 replicas per Windows version, with its RuntimeClass and image, answering on port 80', () => {
    expect(deployments.map((d) => d.metadata.name)).toEqual(vars.windows_workloads.map((w) => w.name));
    for (const [i, w] of vars.windows_workloads.entries()) {
      const deployment = deployments[i]!;
      expect((deployment['spec'] as { replicas: number }).replicas).toBe(2);
      const pod = podSpec(deployment) as PodSpec & { runtimeClassName?: string };
      expect(pod.runtimeClassName).toBe(`windows-${w.version}`);
      expect(pod.nodeSelector).toEqual({ 'kubernetes.io/os': 'windows' });
      const container = pod.containers[0]!;
      expect(container.image).toBe(w.image);
      expect(container.ports?.[0]?.containerPort).toBe(80);
      expect(envOf(container)['POD_IP']).toBe('status.podIP');
      const listener = container.args!.at(-1)!;
      expect(listener).toContain("$listener.Prefixes.Add('http://*:80/')");
      expect(listener).toContain('pod IP: $env:POD_IP');
    }
  });

  it('gives each Deployment its own selector, and one NodePort Service selects the pods of every version', () => {
    const selectors = deployments.map(
      (d) => (d['spec'] as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels,
    );
    expect(new Set(selectors.map((m) => JSON.stringify(m))).size).toBe(deployments.length);
    const service = get(objects, 'Service');
    expect(service['spec']).toMatchObject({
      type: 'NodePort',
      selector: { app: 'win-webserver' },
      ports: [{ port: 80, targetPort: 80, protocol: 'TCP' }],
    });
    for (const d of deployments) {
      const labels = (d['spec'] as { template: { metadata: { labels: Record<string, string> } } }).template
        .metadata.labels;
      expect(labels['app']).toBe('win-webserver');
    }
  });
});

it('the image, build and RuntimeClass of each version come from one mapping', () => {
  expect(
    TWO_VERSION_VARS.windows_workloads.map((w) => [w.version, w.build, w.runtime_class, w.image]),
  ).toEqual([
    ['2019', '10.0.17763', 'windows-2019', 'mcr.microsoft.com/windows/servercore:ltsc2019'],
    ['2022', '10.0.20348', 'windows-2022', 'mcr.microsoft.com/windows/servercore:ltsc2022'],
  ]);
  expect(VAR_SETS[1]![1].windows_workloads.map((w) => w.version)).toEqual(['2019']);
  expect(VAR_SETS[0]![1].windows_workloads.map((w) => w.version)).toEqual(['2022']);
});
