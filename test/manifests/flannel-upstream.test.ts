import { describe, expect, it } from 'vitest';
import { type KubeObject, type ManifestVars, renderManifestObjects } from '../../src/manifests/index.js';
import { pinnedFlannelTag, upstreamFlannelManifest } from '../helpers/flannel-upstream.js';
import { formatDifferences, type StructureDifference, structureDiff } from '../helpers/structure-diff.js';
import { DEFAULT_VARS } from './manifest-vars.js';

// Issue 19 item 7: kubemix's Linux flannel manifest follows upstream's Documentation/kube-flannel.yml
// at the tag versions.yaml pins, field for field, except the deliberate differences its header lists.

const idOf = (o: KubeObject) =>
  `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;

const DS = 'DaemonSet kube-flannel/kube-flannel-ds';
const FLANNELD = 'spec.template.spec.containers[name=kube-flannel]';
const MANAGED_BY = 'metadata.labels["app.kubernetes.io/managed-by"]';

/** A difference the template header lists: where, which side, the value ours has, and why. */
interface Deliberate {
  at: string;
  kind: StructureDifference['kind'];
  ours: unknown;
  why: string;
}

/** The template header's deliberate differences, as `<object>: <path>` for `vars`. */
function deliberateDifferences(ids: string[], vars: ManifestVars): Deliberate[] {
  const windows = 'Windows needs VNI 4096 / UDP 4789 and both sides must agree (header item 1)';
  const iface = "flanneld tunnels on the node's InternalIP (header item 2)";
  const mark = 'kubemix marks what it applied (header item 3)';
  const resync = 'flanneld checks its iptables rules every 60 s, not 5 (header item 4)';
  const apiServer =
    'flanneld reaches the API server at its own address, not the Service ClusterIP (header item 5)';
  return [
    ...ids.map((id) => ({ at: `${id}: ${MANAGED_BY}`, kind: 'added' as const, ours: 'kubemix', why: mark })),
    { at: `${DS}: spec.template.${MANAGED_BY}`, kind: 'added', ours: 'kubemix', why: mark },
    {
      at: 'ConfigMap kube-flannel/kube-flannel-cfg: data["net-conf.json"].Backend.VNI',
      kind: 'added',
      ours: vars.flannel_vni,
      why: windows,
    },
    {
      at: 'ConfigMap kube-flannel/kube-flannel-cfg: data["net-conf.json"].Backend.Port',
      kind: 'added',
      ours: vars.flannel_port,
      why: windows,
    },
    { at: `${DS}: ${FLANNELD}.args[3]`, kind: 'added', ours: '--iface=$(NODE_IP)', why: iface },
    { at: `${DS}: ${FLANNELD}.args[4]`, kind: 'added', ours: '--iptables-resync=60', why: resync },
    {
      at: `${DS}: ${FLANNELD}.env[name=NODE_IP]`,
      kind: 'added',
      ours: { name: 'NODE_IP', valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } },
      why: iface,
    },
    {
      at: `${DS}: ${FLANNELD}.env[name=KUBERNETES_SERVICE_HOST]`,
      kind: 'added',
      ours: { name: 'KUBERNETES_SERVICE_HOST', value: vars.api_server_host },
      why: apiServer,
    },
    {
      at: `${DS}: ${FLANNELD}.env[name=KUBERNETES_SERVICE_PORT]`,
      kind: 'added',
      ours: { name: 'KUBERNETES_SERVICE_PORT', value: String(vars.api_server_port) },
      why: apiServer,
    },
  ];
}

/** Every difference between upstream's objects and ours, each path prefixed with its object. */
function differences(upstream: KubeObject[], ours: KubeObject[]): StructureDifference[] {
  const mine = new Map(ours.map((o) => [idOf(o), o]));
  return upstream.flatMap((o) =>
    structureDiff(o, mine.get(idOf(o))).map((d) => ({ ...d, path: `${idOf(o)}: ${d.path}` })),
  );
}

/** The differences no deliberate entry explains, and the deliberate entries nothing needs any more. */
function unexplained(found: StructureDifference[], listed: Deliberate[]) {
  const matches = (d: StructureDifference, l: Deliberate) =>
    d.path === l.at && d.kind === l.kind && JSON.stringify(d.ours) === JSON.stringify(l.ours);
  return {
    differences: found.filter((d) => !listed.some((l) => matches(d, l))),
    stale: listed.filter((l) => !found.some((d) => matches(d, l))).map((l) => `${l.at} (${l.why})`),
  };
}

describe(`the Linux flannel manifest follows upstream flannel ${pinnedFlannelTag()}'s kube-flannel.yml`, () => {
  const upstream = upstreamFlannelManifest();
  const ours = renderManifestObjects('kube-flannel', DEFAULT_VARS);

  it('has the same objects (kinds, namespaces, names)', () => {
    expect(ours.map(idOf).sort()).toEqual(upstream.map(idOf).sort());
  });

  it('differs from upstream only where the template header says why, and each listed difference is real', () => {
    const left = unexplained(
      differences(upstream, ours),
      deliberateDifferences(ours.map(idOf), DEFAULT_VARS),
    );
    // One line per path: the failure names each difference the header does not list.
    expect(formatDifferences(left.differences), 'differences not listed in the template header').toBe('');
    expect(left.stale, 'listed as deliberate, but ours no longer differs there').toEqual([]);
  });
});

describe('the structure diff names the path of what differs', () => {
  const upstream = upstreamFlannelManifest();
  const ds = () => structuredClone(upstream.find((o) => idOf(o) === DS)!);
  const flanneld = (o: KubeObject) =>
    (o['spec'] as { template: { spec: { containers: Record<string, unknown>[] } } }).template.spec
      .containers[0]!;
  const diffOf = (changed: KubeObject) => formatDifferences(differences([ds()], [changed]));

  it('a probe removed is missing at its path', () => {
    const changed = ds();
    delete flanneld(changed)['readinessProbe'];
    expect(diffOf(changed)).toBe(
      `${DS}: ${FLANNELD}.readinessProbe: upstream has {"httpGet":{"path":"/readyz","port":"healthz"},"initialDelaySeconds":5,"periodSeconds":10}, ours has nothing`,
    );
  });

  it('an init container that runs cp instead of install-conf is a changed value', () => {
    const changed = ds();
    const spec = (changed['spec'] as { template: { spec: { initContainers: { command: string[] }[] } } })
      .template.spec;
    spec.initContainers[1]!.command = ['cp'];
    expect(diffOf(changed)).toBe(
      `${DS}: spec.template.spec.initContainers[name=install-cni].command[0]: upstream "/opt/bin/install-conf", ours "cp"`,
    );
  });

  it('an added env var and a JSON field inside a ConfigMap key are additions at their paths', () => {
    const changed = ds();
    (flanneld(changed)['env'] as unknown[]).push({ name: 'EXTRA', value: '1' });
    expect(diffOf(changed)).toBe(
      `${DS}: ${FLANNELD}.env[name=EXTRA]: ours adds {"name":"EXTRA","value":"1"}`,
    );
    const cm = upstream.find((o) => o.kind === 'ConfigMap')!;
    const edited = structuredClone(cm);
    const data = edited['data'] as Record<string, string>;
    data['net-conf.json'] = JSON.stringify({ ...JSON.parse(data['net-conf.json']!), VNI: 1 });
    expect(formatDifferences(structureDiff(cm, edited))).toBe('data["net-conf.json"].VNI: ours adds 1');
  });
});
