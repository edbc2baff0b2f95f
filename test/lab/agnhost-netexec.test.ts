import { describe, expect, it } from 'vitest';
import type { ClusterState, KubeObject } from '../../fixtures/lab/cluster-state.js';
import { connectOutput, parseConnect } from '../../fixtures/lab/state/agnhost.js';
import { renderManifestObjects } from '../../src/manifests/index.js';
import { loadVersions } from '../../src/versions/versions.js';
import { initialisedState, labManifestVars } from './helpers.js';

/**
 * The lab's agnhost: a pod of the agnhost image running `netexec` answers as netexec does at the
 * pinned tag (k8s.io/kubernetes v1.37.2 test/images/agnhost/netexec/netexec.go), `agnhost
 * connect` decides as connect.go does, and whatever the lab does not model fails loudly.
 */

const AGNHOST = loadVersions()['agnhost']!;

const podIp = (p: KubeObject) => (p['status'] as { podIP: string }).podIP;
const nodeOf = (p: KubeObject) => (p['spec'] as { nodeName: string }).nodeName;

/** cp1 (controller, 10.233.1.2) + w1 (Linux worker), flannel, and verify's Linux workload. */
async function linuxCluster(linuxWorkers = 1) {
  const { state, init } = await initialisedState();
  for (const o of renderManifestObjects('kube-flannel', labManifestVars())) await state.applyObject(o);
  if (linuxWorkers > 0)
    await state.joinNode({
      name: 'w1',
      os: 'linux',
      address: '10.233.1.3',
      token: init.token,
      caCertHash: init.caCertHash,
    });
  for (const o of renderManifestObjects('linux-netexec', labManifestVars(4096, 4789, linuxWorkers)))
    await state.applyObject(o);
  const pods = await state.pods('default');
  const client = pods.find((p) => p.metadata.name.startsWith('linux-netexec-client-'))!;
  const endpoint = pods.find((p) => p !== client && p.metadata.name.startsWith('linux-netexec-'))!;
  return { state, client, endpoint };
}

/** A bare Deployment of one pod with this container on the Linux nodes. */
async function deploy(state: ClusterState, name: string, container: Record<string, unknown>) {
  await state.applyObject({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { nodeSelector: { 'kubernetes.io/os': 'linux' }, containers: [{ name: 'c', ...container }] },
      },
    },
  } as KubeObject);
  return (await state.pods('default')).find((p) => p.metadata.name.startsWith(`${name}-`))!;
}

const dialUrl = (via: KubeObject, host: string, port: number, request = 'hostname') =>
  `http://${podIp(via)}:8080/dial?request=${request}&protocol=http&host=${host}&port=${port}&tries=1`;

describe('agnhost netexec in the lab', () => {
  it('runs where the scheduler puts it: the worker, or the controller when there is none', async () => {
    const one = await linuxCluster(1);
    expect([nodeOf(one.endpoint), nodeOf(one.client)]).toEqual(['w1', 'w1']);
    const none = await linuxCluster(0);
    expect([nodeOf(none.endpoint), nodeOf(none.client)]).toEqual(['cp1', 'cp1']);
  });

  it('answers /hostname with the pod name, on its --http-port only', async () => {
    const { state, endpoint } = await linuxCluster();
    expect(
      await state.reach({ from: { node: 'cp1' }, url: `http://${podIp(endpoint)}:8080/hostname` }),
    ).toEqual({
      ok: true,
      status: 200,
      body: endpoint.metadata.name,
      servedBy: `default/${endpoint.metadata.name}`,
    });
    // 8081 is netexec's UDP port: nothing accepts TCP there.
    expect(
      await state.reach({ from: { node: 'cp1' }, url: `http://${podIp(endpoint)}:8081/hostname` }),
    ).toMatchObject({ ok: false, kind: 'refused', exitCode: 7 });
  });

  it('/dial requests the target from the pod and answers with Go JSON of what it got', async () => {
    const { state, client, endpoint } = await linuxCluster();
    const to = (url: string) => state.reach({ from: { node: 'cp1' }, url });
    expect(await to(dialUrl(client, podIp(endpoint), 8080))).toMatchObject({
      ok: true,
      status: 200,
      body: `{"responses":["${endpoint.metadata.name}"]}`,
    });
    // Through the Service's DNS name (resolved in the pod) and port 80.
    expect(await to(dialUrl(client, 'linux-netexec.default.svc.cluster.local', 80))).toMatchObject({
      body: `{"responses":["${endpoint.metadata.name}"]}`,
    });
    // Nothing listens: the error is net/http's, the status still 200 (dialHandler sets none).
    expect(await to(dialUrl(client, podIp(endpoint), 9999))).toMatchObject({
      status: 200,
      body: `{"errors":["Get \\"http://${podIp(endpoint)}:9999/hostname\\": dial tcp ${podIp(endpoint)}:9999: connect: connection refused"]}`,
    });
    // A name that does not resolve is a bad parameter (net.ResolveTCPAddr comes first).
    expect(await to(dialUrl(client, 'nope.default.svc.cluster.local', 80))).toMatchObject({
      status: 400,
      body: 'host and/or port param are invalid. lookup nope.default.svc.cluster.local on 10.96.0.10:53: no such host\n',
    });
    expect(await to(`http://${podIp(client)}:8080/dial?host=x&port=80`)).toMatchObject({
      status: 400,
      body: 'request parameter not specified. <nil>\n',
    });
  });

  it('/dial through a DNS server that does not answer: Go reports the lookup timing out', async () => {
    const { state } = await linuxCluster();
    await state.deleteObject('Deployment', 'kube-system', 'coredns');
    // The lab numbers pod IPs per node in order: read the client again.
    const client = (await state.pods('default')).find((p) =>
      p.metadata.name.startsWith('linux-netexec-client-'),
    )!;
    expect(
      await state.reach({
        from: { node: 'cp1' },
        url: dialUrl(client, 'linux-netexec.default.svc.cluster.local', 80),
      }),
    ).toMatchObject({
      status: 400,
      body: 'host and/or port param are invalid. lookup linux-netexec.default.svc.cluster.local on 10.96.0.10:53: i/o timeout\n',
    });
  });

  it('/healthz is 200 once the UDP server runs, 412 without one; /echo and /serverport answer', async () => {
    const { state, endpoint } = await linuxCluster();
    const get = (pod: KubeObject, path: string) =>
      state.reach({ from: { node: 'cp1' }, url: `http://${podIp(pod)}:8080${path}` });
    expect(await get(endpoint, '/healthz')).toMatchObject({ ok: true, status: 200, body: '' });
    expect(await get(endpoint, '/echo?msg=hi&code=404')).toMatchObject({ status: 404, body: 'hi' });
    expect(await get(endpoint, '/serverport')).toMatchObject({ status: 200, body: '8080' });
    const noUdp = await deploy(state, 'no-udp', { image: AGNHOST, args: ['netexec', '--udp-port=-1'] });
    expect(await get(noUdp, '/healthz')).toMatchObject({ ok: true, status: 412 });
  });

  it('fails loudly for what it does not model: other paths, images, subcommands, flags and tags', async () => {
    const { state, endpoint } = await linuxCluster();
    const loud = async (url: string) => {
      const r = await state.reach({ from: { node: 'cp1' }, url });
      expect(r).toMatchObject({ ok: false, kind: 'unmodelled', exitCode: 2 });
      return !r.ok && r.error;
    };
    // netexec's root answers the current time: not modelled.
    expect(await loud(`http://${podIp(endpoint)}:8080/`)).toMatch(
      /^kubemix lab: not simulated: pod default\/linux-netexec-\S+: netexec's answer to \/ /,
    );
    const nginx = await deploy(state, 'web', { image: 'nginx', ports: [{ containerPort: 80 }] });
    expect(await loud(`http://${podIp(nginx)}/`)).toContain('what container c (image nginx) serves');
    const porter = await deploy(state, 'porter', { image: AGNHOST, args: ['porter'] });
    expect(await loud(`http://${podIp(porter)}/`)).toContain('agnhost porter');
    const tls = await deploy(state, 'tls', {
      image: AGNHOST,
      args: ['netexec', '--tls-cert-file=/localhost.crt'],
    });
    expect(await loud(`http://${podIp(tls)}:8080/hostname`)).toContain('netexec flag --tls-cert-file');
    const old = await deploy(state, 'old', {
      image: 'registry.k8s.io/e2e-test-images/agnhost:2.52',
      args: ['netexec'],
    });
    expect(await loud(`http://${podIp(old)}:8080/hostname`)).toContain(
      'agnhost 2.52: the lab models agnhost',
    );
    // The image's default (CMD pause) listens on nothing: refused, as a real pod would be.
    const paused = await deploy(state, 'paused', { image: AGNHOST });
    expect(await state.reach({ from: { node: 'cp1' }, url: `http://${podIp(paused)}:8080/` })).toMatchObject({
      ok: false,
      kind: 'refused',
    });
  });
});

describe('agnhost connect in the lab', () => {
  it('opens TCP connections where something listens; says REFUSED, DNS or TIMEOUT otherwise', async () => {
    const { state, client, endpoint } = await linuxCluster();
    const from = { pod: client.metadata.name };
    const tcp = async (dest: string) => {
      const target = parseConnect([dest, '--timeout=5s']);
      if (!('host' in target)) throw new Error(`not a target: ${JSON.stringify(target)}`);
      const { outcome, nameserver } = await state.connect({ from, host: target.host, port: target.port });
      if (typeof outcome === 'object') throw new Error(outcome.unmodelled);
      return connectOutput(target, outcome, nameserver);
    };
    expect(await tcp(`${podIp(endpoint)}:8080`)).toEqual({ stdout: '', stderr: '', code: 0 });
    expect(await tcp('linux-netexec:80')).toEqual({ stdout: '', stderr: '', code: 0 });
    // The lab's internet answers pods (simulated: nothing leaves this machine).
    expect(await tcp('www.microsoft.com:443')).toMatchObject({ code: 0 });
    expect(await tcp(`${podIp(endpoint)}:9999`)).toEqual({ stdout: '', stderr: 'REFUSED\n', code: 1 });
    expect(await tcp('nope.default.svc.cluster.local:80')).toEqual({
      stdout: '',
      stderr: 'DNS: lookup nope.default.svc.cluster.local on 10.96.0.10:53: no such host\n',
      code: 1,
    });
    // An address of the pod network no pod holds: the SYN goes unanswered.
    expect(await tcp('10.244.9.9:80')).toEqual({ stdout: '', stderr: 'TIMEOUT\n', code: 1 });
  });

  it('refuses a destination without a port as agnhost does; other protocols are not modelled', () => {
    expect(parseConnect(['10.0.0.1'])).toEqual({
      stdout: '',
      stderr: 'UNKNOWN: address 10.0.0.1: missing port in address\n',
      code: 1,
    });
    expect(parseConnect(['10.0.0.1:53', '--protocol=udp'])).toEqual({
      unmodelled: 'agnhost connect --protocol=udp',
    });
    expect(parseConnect(['[fd00::1]:80', '--timeout', '1m30s'])).toEqual({
      dest: '[fd00::1]:80',
      host: 'fd00::1',
      port: 80,
    });
  });
});
