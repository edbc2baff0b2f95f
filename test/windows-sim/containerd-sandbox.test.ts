import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { offlineHostInfo } from '../../fixtures/windows-sim/cluster-commands-offline.js';
import { clusterHostInfo } from '../../fixtures/windows-sim/cluster-host-info.js';
import { containerdConfig } from '../../fixtures/windows-sim/containerd-config.js';
import {
  WINDOWS_CONTAINERD_CONFIG,
  windowsSandboxImage,
  windowsSandboxImageError,
} from '../../fixtures/windows-sim/containerd-sandbox.js';
import { SimHost } from '../../fixtures/windows-sim/host.js';
import { renderManifestObjects } from '../../src/manifests/index.js';
import { renderString } from '../../src/template/index.js';
import { loadVersions } from '../../src/versions/versions.js';
import { initialisedState, labManifestVars } from '../lab/helpers.js';

// A simulated Windows node's containerd reads its sandbox image from config.toml like the lab's
// Linux containerd, and an offline node without that image fails every pod sandbox, so Windows
// flannel never writes its CNI config and the node stays NotReady.
const TEMPLATE = readFileSync(
  fileURLToPath(new URL('../../playbooks/templates/windows/containerd-config.toml.j2', import.meta.url)),
  'utf8',
);
const CONTAINERD = loadVersions()['containerd']!;

function hostWith(config: string | undefined): SimHost {
  const host = new SimHost({ name: 'win-sandbox' });
  clusterHostInfo(host).containerdVersion = CONTAINERD;
  if (config !== undefined) host.fs.write(WINDOWS_CONTAINERD_CONFIG, config);
  return host;
}

describe("a Windows node's containerd sandbox image", () => {
  it("is what kubemix's configuration names, else containerd's default", () => {
    const kubemix = renderString(TEMPLATE, { sandbox_image: 'registry.k8s.io/pause:3.99' });
    expect(windowsSandboxImage(hostWith(kubemix))).toBe('registry.k8s.io/pause:3.99');
    // Install-Containerd.ps1's configuration (no sandbox line modelled): containerd 2.3.4's default.
    const script = containerdConfig(CONTAINERD, 'c:/opt/cni/bin', 'c:/etc/cni/net.d', {
      rewritesBinDirs: true,
    });
    expect(windowsSandboxImage(hostWith(script))).toBe('registry.k8s.io/pause:3.10.2');
  });

  it('offline and not imported: every pod sandbox fails, and the node stays NotReady', async () => {
    const host = hostWith(renderString(TEMPLATE, { sandbox_image: 'registry.k8s.io/pause:3.99' }));
    expect(windowsSandboxImageError(host)).toBeUndefined(); // online: the first sandbox pulls it
    offlineHostInfo(host).offline = true;
    const error = windowsSandboxImageError(host)!;
    expect(error.message).toBe(
      'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to pull image "registry.k8s.io/pause:3.99": failed to pull and unpack image "registry.k8s.io/pause:3.99": failed to resolve image: failed to do request: Head "https://registry.k8s.io/v2/pause/manifests/3.99": dial tcp: lookup registry.k8s.io: no such host',
    );

    const { state, init } = await initialisedState();
    await state.joinNode({
      name: 'win-sandbox',
      os: 'windows',
      token: init.token,
      caCertHash: init.caCertHash,
      address: '10.233.1.9',
      windowsBuild: '10.0.20348',
      kubeletRunning: true,
      sandboxImageError: error,
    });
    for (const manifest of ['kube-flannel', 'kube-flannel-windows', 'kube-proxy-windows'] as const)
      for (const o of renderManifestObjects(manifest, labManifestVars())) await state.applyObject(o);
    const node = await state.getObject('Node', undefined, 'win-sandbox');
    const status = node?.['status'] as { conditions: { type: string; status: string }[] } | undefined;
    const ready = status?.conditions.find((c) => c.type === 'Ready');
    expect(ready?.status).toBe('False');
    const onNode = (await state.pods()).filter(
      (p) => (p['spec'] as { nodeName?: string }).nodeName === 'win-sandbox',
    );
    expect(onNode.length).toBeGreaterThan(0);
    const events = await state.events();
    for (const pod of onNode)
      expect(events.filter((e) => e.object === `pod/${pod.metadata.name}`).map((e) => e.reason)).toContain(
        'FailedCreatePodSandBox',
      );
  });
});
