import { describe, expect, it } from 'vitest';
import { type KubeObject, readFlannelNetConf, renderManifestObjects } from '../../src/manifests/index.js';
import { DEFAULT_VARS, OTHER_VARS, VAR_SETS } from './manifest-vars.js';

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { fieldRef?: { fieldPath: string } };
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  securityContext?: { capabilities?: { add?: string[] } };
  volumeMounts?: { name: string; mountPath: string }[];
}
interface PodSpec {
  nodeSelector?: Record<string, string>;
  affinity?: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: { matchExpressions: { key: string; operator: string; values: string[] }[] }[];
      };
    };
  };
  hostNetwork?: boolean;
  serviceAccountName?: string;
  securityContext?: { windowsOptions?: { hostProcess?: boolean; runAsUserName?: string } };
  tolerations?: Record<string, string>[];
  initContainers?: Container[];
  containers: Container[];
  volumes: { name: string; hostPath?: { path: string }; configMap?: { name: string } }[];
}

const find = (objects: KubeObject[], kind: string, name: string): KubeObject => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
};
const podSpec = (obj: KubeObject) => (obj['spec'] as { template: { spec: PodSpec } }).template.spec;
const data = (obj: KubeObject) => obj['data'] as Record<string, string>;
const envOf = (container: Container) =>
  Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value ?? e.valueFrom?.fieldRef?.fieldPath]));

describe.each(VAR_SETS)('flannel with %s', (_label, vars) => {
  const linux = renderManifestObjects('kube-flannel', vars);
  const windows = renderManifestObjects('kube-flannel-windows', vars);

  it('Linux and Windows net-conf.json carry the same pod CIDR, backend, VNI and port, all from the vars', () => {
    const expected = {
      network: vars.pod_cidr,
      backend: vars.flannel_backend,
      vni: vars.flannel_vni,
      port: vars.flannel_port,
    };
    expect(readFlannelNetConf(linux)).toEqual({ ...expected, configMap: 'kube-flannel-cfg' });
    expect(readFlannelNetConf(windows)).toEqual({ ...expected, configMap: 'kube-flannel-windows-cfg' });
  });

  it('the Windows CNI network is named flannel.<VNI> and delegates to sdnoverlay with the three policies', () => {
    const cni = JSON.parse(data(find(windows, 'ConfigMap', 'kube-flannel-windows-cfg'))['cni-conf.json']!);
    expect(cni.name).toBe(`flannel.${vars.flannel_vni}`);
    expect(cni.type).toBe('flannel');
    expect(cni.delegate.type).toBe('sdnoverlay');
    const policies = cni.delegate.AdditionalArgs.map(
      (a: { Name: string; Value: { Type: string; Settings: unknown } }) => [
        a.Name,
        a.Value.Type,
        a.Value.Settings,
      ],
    );
    expect(policies).toEqual([
      ['EndpointPolicy', 'OutBoundNAT', { Exceptions: [vars.pod_cidr, vars.service_cidr] }],
      ['EndpointPolicy', 'SDNROUTE', { DestinationPrefix: vars.service_cidr, NeedEncap: true }],
      ['EndpointPolicy', 'ProviderAddress', { ProviderAddress: 'set-by-run.ps1' }],
    ]);
  });

  it('the Windows run script fills ProviderAddress, adds the metadata route and starts flanneld on the default-route IP', () => {
    const script = data(find(windows, 'ConfigMap', 'kube-flannel-windows-cfg'))['run.ps1']!;
    expect(script).toContain("-DestinationPrefix '0.0.0.0/0'");
    expect(script).toMatch(/route\.exe ADD 169\.254\.169\.254 MASK 255\.255\.255\.255 .* \/p/);
    expect(script).toContain("$policy.Value.Type -eq 'ProviderAddress'");
    expect(script).toContain('$policy.Value.Settings.ProviderAddress = $nodeIp');
    expect(script).toContain("(Join-Path $cniConfigPath '10-flannel.conf')");
    expect(script).toMatch(/& \$flanneld '--kube-subnet-mgr' '--iface' \$nodeIp/);
  });

  it('the Windows DaemonSet is a HostProcess pod on Windows nodes with the API server override', () => {
    const ds = find(windows, 'DaemonSet', 'kube-flannel-ds-windows-amd64');
    expect(ds.metadata.namespace).toBe('kube-flannel');
    const pod = podSpec(ds);
    expect(pod.nodeSelector).toEqual({ 'kubernetes.io/os': 'windows' });
    expect(pod.securityContext?.windowsOptions).toEqual({
      hostProcess: true,
      runAsUserName: 'NT AUTHORITY\\system',
    });
    expect(pod.hostNetwork).toBe(true);
    expect(pod.serviceAccountName).toBe('flannel');
    expect(pod.tolerations).toContainEqual({
      key: 'os',
      operator: 'Equal',
      value: 'windows',
      effect: 'NoSchedule',
    });
    const container = pod.containers[0]!;
    expect(container.image).toBe(vars.images.windows_flannel);
    expect(envOf(container)).toEqual({
      CNI_BIN_PATH: 'C:\\opt\\cni\\bin',
      CNI_CONFIG_PATH: 'C:\\etc\\cni\\net.d',
      SERVICE_SUBNET: vars.service_cidr,
      NODE_IP: 'status.hostIP',
      POD_NAME: 'metadata.name',
      POD_NAMESPACE: 'metadata.namespace',
      KUBERNETES_SERVICE_HOST: vars.api_server_host,
      KUBERNETES_SERVICE_PORT: String(vars.api_server_port),
    });
    expect(pod.volumes).toEqual([
      { name: 'flannel-windows-cfg', configMap: { name: 'kube-flannel-windows-cfg' } },
    ]);
  });

  it('the Linux DaemonSet runs on Linux nodes only, installs the CNI plugin and config, and runs flanneld', () => {
    const pod = podSpec(find(linux, 'DaemonSet', 'kube-flannel-ds'));
    expect(
      pod.affinity?.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms,
    ).toEqual([{ matchExpressions: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }] }]);
    expect(pod.hostNetwork).toBe(true);
    expect(pod.serviceAccountName).toBe('flannel');
    expect(pod.initContainers?.map((c) => [c.name, c.image])).toEqual([
      ['install-cni-plugin', vars.images.flannel_cni_plugin],
      ['install-cni', vars.images.flannel],
    ]);
    const flanneld = pod.containers[0]!;
    expect(flanneld.name).toBe('kube-flannel');
    expect(flanneld.image).toBe(vars.images.flannel);
    // flanneld tunnels on the node's InternalIP, from the Downward API, not the default-route NIC,
    // and checks its iptables rules once a minute (the template's header, item 4).
    expect(flanneld.args).toEqual([
      '--ip-masq',
      '--kube-subnet-mgr',
      '--healthz-port=8081',
      '--iface=$(NODE_IP)',
      '--iptables-resync=60',
    ]);
    // It reaches the API server at its own address: the kubernetes Service's ClusterIP works only
    // once kube-proxy on the node has programmed it (the template's header, item 5).
    expect(envOf(flanneld)).toEqual({
      POD_NAME: 'metadata.name',
      POD_NAMESPACE: 'metadata.namespace',
      NODE_IP: 'status.hostIP',
      KUBERNETES_SERVICE_HOST: vars.api_server_host,
      KUBERNETES_SERVICE_PORT: String(vars.api_server_port),
      EVENT_QUEUE_DEPTH: '5000',
      CONT_WHEN_CACHE_NOT_READY: 'false',
    });
    expect(flanneld.securityContext?.capabilities?.add).toEqual(['NET_ADMIN', 'NET_RAW']);
    expect(pod.volumes.map((v) => v.name)).toEqual([
      'run',
      'cni-plugin',
      'cni',
      'flannel-cfg',
      'xtables-lock',
    ]);
    const cni = JSON.parse(data(find(linux, 'ConfigMap', 'kube-flannel-cfg'))['cni-conf.json']!);
    expect(cni.plugins.map((p: { type: string }) => p.type)).toEqual(['flannel', 'portmap']);
  });

  it('RBAC lets flannel read nodes and pods and patch node status; the namespace allows privileged pods', () => {
    const role = find(linux, 'ClusterRole', 'flannel');
    expect(role['rules']).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
      { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['nodes/status'], verbs: ['patch'] },
    ]);
    expect(find(linux, 'ClusterRoleBinding', 'flannel')['subjects']).toEqual([
      { kind: 'ServiceAccount', name: 'flannel', namespace: 'kube-flannel' },
    ]);
    expect(
      find(linux, 'Namespace', 'kube-flannel').metadata.labels?.['pod-security.kubernetes.io/enforce'],
    ).toBe('privileged');
  });
});

describe('the vars reach the manifests', () => {
  it('VNI 4096 / port 4789 by default, and other values when the spec says so', () => {
    expect(readFlannelNetConf(renderManifestObjects('kube-flannel', DEFAULT_VARS))).toMatchObject({
      vni: 4096,
      port: 4789,
    });
    expect(readFlannelNetConf(renderManifestObjects('kube-flannel-windows', DEFAULT_VARS))).toMatchObject({
      vni: 4096,
      port: 4789,
    });
    const windowsCni = JSON.parse(
      (renderManifestObjects('kube-flannel-windows', DEFAULT_VARS)[0]!['data'] as Record<string, string>)[
        'cni-conf.json'
      ]!,
    );
    expect(windowsCni.name).toBe('flannel.4096');
    expect(readFlannelNetConf(renderManifestObjects('kube-flannel', OTHER_VARS))).toMatchObject({
      vni: 4097,
      port: 4790,
    });
  });
});
