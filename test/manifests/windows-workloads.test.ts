import { describe, expect, it } from 'vitest';
import { type KubeObject, renderManifestObjects } from '../../src/manifests/index.js';
import { VAR_SETS } from './manifest-vars.js';

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

describe('runtimeclasses', () => {
  const objects = renderManifestObjects('runtimeclasses', VAR_SETS[0]![1]);

  it.each([
    ['windows-2019', '10.0.17763'],
    ['windows-2022', '10.0.20348'],
  ])('%s selects Windows build %s with the runhcs handler and tolerates the Windows taint', (name, build) => {
    const rc = objects.find((o) => o.metadata.name === name)!;
    expect(rc['handler']).toBe('runhcs-wcow-process');
    expect(rc['scheduling']).toEqual({
      nodeSelector: {
        'kubernetes.io/os': 'windows',
        'kubernetes.io/arch': 'amd64',
        'node.kubernetes.io/windows-build': build,
      },
      tolerations: [{ key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' }],
    });
  });
});

describe.each(VAR_SETS)('win-webserver with %s', (_label, vars) => {
  const objects = renderManifestObjects('win-webserver', vars);

  it('runs 2 Windows Server Core replicas of the version asked for, answering on port 80 with the pod IP', () => {
    const deployment = get(objects, 'Deployment');
    expect((deployment['spec'] as { replicas: number }).replicas).toBe(2);
    const pod = podSpec(deployment);
    expect(pod.nodeSelector).toEqual({ 'kubernetes.io/os': 'windows' });
    expect(pod.tolerations).toContainEqual({
      key: 'os',
      operator: 'Equal',
      value: 'windows',
      effect: 'NoSchedule',
    });
    const container = pod.containers[0]!;
    expect(container.image).toBe(`mcr.microsoft.com/windows/servercore:${vars.windows_servercore_tag}`);
    expect(container.ports?.[0]?.containerPort).toBe(80);
    expect(envOf(container)['POD_IP']).toBe('status.podIP');
    const listener = container.args!.at(-1)!;
    expect(listener).toContain("$listener.Prefixes.Add('http://*:80/')");
    expect(listener).toContain('pod IP: $env:POD_IP');
  });

  it('is exposed by a NodePort Service on port 80 selecting its pods', () => {
    const service = get(objects, 'Service');
    expect(service['spec']).toMatchObject({
      type: 'NodePort',
      selector: { app: 'win-webserver' },
      ports: [{ port: 80, targetPort: 80, protocol: 'TCP' }],
    });
  });
});

it('Windows Server 2019 clusters get the ltsc2019 image', () => {
  expect(VAR_SETS[1]![1].windows_servercore_tag).toBe('ltsc2019');
  expect(VAR_SETS[0]![1].windows_servercore_tag).toBe('ltsc2022');
});
