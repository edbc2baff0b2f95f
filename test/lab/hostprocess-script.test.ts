import { beforeAll, describe, expect, it } from 'vitest';
import {
  type ContainerSpec,
  type HostProcessPodSpec,
  runHostProcessContainer,
} from '../../fixtures/lab/state/hostprocess-script.js';
import { loadPowerShellParser } from '../../fixtures/lab/state/powershell/parser.js';
import type { KubeObject } from '../../fixtures/lab/state/types.js';
import { renderManifestObjects } from '../../src/manifests/index.js';
import { labManifestVars } from './helpers.js';
import { node, runDaemonSet, stateOf } from './hostprocess-helpers.js';

// The lab's reading of HostProcess start scripts (fixtures/lab/state/hostprocess-script.ts):
// scripts in, container outcome out, against the containerd 1.7 / 1.6 mount layouts.

beforeAll(() => loadPowerShellParser());

/** A HostProcess pod running `script` with `mounts` (configMap volumes by mount path). */
function runScript(
  script: string,
  options: {
    runtime?: string;
    configMaps?: Record<string, Record<string, string>>;
    env?: ContainerSpec['env'];
  } = {},
) {
  const configMaps = options.configMaps ?? {};
  const objects: KubeObject[] = Object.entries(configMaps).map(([path, data], i) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm${i}`, namespace: 'ns' },
    data,
    path,
  }));
  const spec: HostProcessPodSpec = {
    securityContext: { windowsOptions: { hostProcess: true } },
    hostNetwork: true,
    volumes: Object.keys(configMaps).map((_, i) => ({ name: `v${i}`, configMap: { name: `cm${i}` } })),
  };
  const container: ContainerSpec = {
    name: 'c',
    image: 'docker.io/sigwindowstools/flannel:v0.21.5-hostprocess',
    command: ['powershell.exe'],
    args: ['-NoProfile', '-Command', script],
    volumeMounts: Object.keys(configMaps).map((mountPath, i) => ({ name: `v${i}`, mountPath })),
    ...(options.env ? { env: options.env } : {}),
  };
  const n = node(options.runtime);
  return runHostProcessContainer(
    { state: stateOf(objects), node: n, podName: 'p', namespace: 'ns', spec, nics: n.nics!, hnsNetworks: [] },
    container,
  );
}

// What kubemix's Windows flannel run.ps1 did before this fix (and what breaks on containerd 1.7).
const OLD_TOKEN_COPY = [
  "$ErrorActionPreference = 'Stop'",
  '$sandbox = $env:CONTAINER_SANDBOX_MOUNT_POINT',
  "$tokenDir = 'C:\\var\\run\\secrets\\kubernetes.io\\serviceaccount'",
  'New-Item -ItemType Directory -Force -Path $tokenDir | Out-Null',
  "Copy-Item -Force -Path (Join-Path $sandbox 'var\\run\\secrets\\kubernetes.io\\serviceaccount\\*') -Destination $tokenDir",
].join('\n');

describe('a HostProcess container on containerd 1.7 (volumes bind-mounted at their mountPath, read-only)', () => {
  it('copying the service account token onto itself fails with the PowerShell error and the container exits 1', () => {
    const outcome = runScript(OLD_TOKEN_COPY);
    expect(outcome.state).toBe('exited');
    if (outcome.state !== 'exited') return;
    expect(outcome.exitCode).toBe(1);
    expect(outcome.message.split('\r\n')).toEqual([
      "Copy-Item : Access to the path 'C:\\var\\run\\secrets\\kubernetes.io\\serviceaccount\\ca.crt' is denied.",
      'At line:5 char:1',
      expect.stringMatching(/^\+ Copy-Item -Force -Path/),
      expect.stringMatching(/^\+ ~+$/),
      '    + CategoryInfo          : PermissionDenied: (C:\\hpc\\var\\run\\...eaccount\\ca.crt:FileInfo) [Copy-Item], UnauthorizedAccessException',
      '    + FullyQualifiedErrorId : CopyFileInfoItemUnauthorizedAccessError,Microsoft.PowerShell.Commands.CopyItemCommand',
    ]);
  });

  it('the same copy works on containerd 1.6, where the volume exists only under the sandbox', () => {
    const outcome = runScript(OLD_TOKEN_COPY, { runtime: 'containerd://1.6.28' });
    expect(outcome).toMatchObject({ state: 'exited', exitCode: 0 });
    expect(outcome.written.map((w) => w.path)).toContain(
      'C:\\var\\run\\secrets\\kubernetes.io\\serviceaccount\\token',
    );
  });

  it('a write into a ConfigMap mount fails at both of its paths (sig-windows-tools#289: net-conf.json)', () => {
    const script =
      '$ErrorActionPreference = \'Stop\'\ncp -force "$env:CONTAINER_SANDBOX_MOUNT_POINT/etc/kube-flannel/net-conf.json" C:\\etc\\kube-flannel\\net-conf.json';
    const outcome = runScript(script, { configMaps: { '/etc/kube-flannel/': { 'net-conf.json': '{}' } } });
    expect(outcome.state).toBe('exited');
    expect(outcome.state === 'exited' && outcome.message).toContain(
      "Copy-Item : Access to the path 'C:\\etc\\kube-flannel\\net-conf.json' is denied.",
    );
    // Reading the mount works, and writing outside it too.
    const fine = runScript(
      "$ErrorActionPreference = 'Stop'\n$c = Get-Content -Raw C:\\etc\\kube-flannel\\net-conf.json\nSet-Content -Path C:\\run\\flannel\\x.json -Value $c",
      { configMaps: { '/etc/kube-flannel/': { 'net-conf.json': '{"Network":"10.244.0.0/16"}' } } },
    );
    expect(fine.written).toEqual([
      { path: 'C:\\run\\flannel\\x.json', content: '{"Network":"10.244.0.0/16"}' },
    ]);
  });

  it('without -ErrorAction Stop the error is logged and the script goes on', () => {
    const outcome = runScript(OLD_TOKEN_COPY.replace("'Stop'", "'Continue'"));
    expect(outcome).toMatchObject({ state: 'exited', exitCode: 0 });
    expect(outcome.log.join('\n')).toContain('CopyFileInfoItemUnauthorizedAccessError');
  });
});

describe('what the reader cannot decide never passes for fine', () => {
  it('a write to a path built from an unknown value is undecidable', () => {
    const outcome = runScript('Set-Content -Path (Join-Path $env:SOMEWHERE x.txt) -Value 1');
    expect(outcome.state).toBe('undecidable');
  });

  it('a write into a read-only mount in a branch it cannot decide is undecidable', () => {
    const outcome = runScript(`if ($env:MAYBE) { ${OLD_TOKEN_COPY.split('\n').slice(1).join('; ')} }`);
    expect(outcome).toMatchObject({ state: 'undecidable' });
    expect(outcome.state === 'undecidable' && outcome.reason).toContain('read-only mount');
  });

  it('an unmodelled cmdlet that may write files is undecidable; one that cannot only yields an unknown value', () => {
    expect(runScript('Get-Process | Export-Csv C:\\x.csv').state).toBe('undecidable');
    expect(runScript('$x = Get-Process\nWrite-Host $x').state).toBe('exited');
  });

  it('a line tree-sitter-powershell cannot parse is undecidable, not a failure of the script', () => {
    // PowerShell reads this bareword (upstream's start.ps1 had it); the grammar does not.
    const outcome = runScript('cp -force $env:X/etc/kube-flannel/net-conf.json C:\\etc\\x.json');
    expect(outcome).toMatchObject({ state: 'undecidable' });
    expect(outcome.state === 'undecidable' && outcome.reason).toContain(
      'tree-sitter-powershell cannot parse',
    );
  });

  it('statements it does not model are refused by name', () => {
    const outcome = runScript('try { Write-Host 1 } catch { }');
    expect(outcome).toMatchObject({ state: 'undecidable' });
    expect(outcome.state === 'undecidable' && outcome.reason).toContain('try_statement');
  });

  it('binds parameters as PowerShell does: an unknown one is a terminating error', () => {
    const outcome = runScript('Copy-Item -Frobnicate x -Destination y');
    expect(outcome.state === 'exited' && outcome.message).toContain(
      "Copy-Item : A parameter cannot be found that matches parameter name 'Frobnicate'.",
    );
  });
});

describe("kubemix's Windows DaemonSets", () => {
  const objects = [
    ...renderManifestObjects('kube-flannel-windows', labManifestVars()),
    ...renderManifestObjects('kube-proxy-windows', labManifestVars()),
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'kube-proxy', namespace: 'kube-system' },
      data: { 'kubeconfig.conf': 'server: https://10.233.1.2:6443\n' },
    },
  ] as KubeObject[];

  it("flannel starts flanneld on the node's InternalIP, not on the NAT adapter of the default route", () => {
    for (const runtime of ['containerd://1.7.22', 'containerd://1.6.28']) {
      const outcome = runDaemonSet(objects, 'kube-flannel-ds-windows-amd64', node(runtime));
      expect(outcome, runtime).toMatchObject({
        state: 'running',
        program: expect.stringMatching(/\\flannel\\flanneld\.exe$/),
      });
      if (outcome.state !== 'running') continue;
      expect(outcome.args.slice(0, 3)).toEqual(['--kube-subnet-mgr', '--iface', '10.233.1.200']);
      const cni = outcome.written.find((w) => w.path === 'C:\\etc\\cni\\net.d\\10-flannel.conf');
      expect(JSON.parse(cni!.content!).delegate.AdditionalArgs[2].Value.Settings.ProviderAddress).toBe(
        '10.233.1.200',
      );
    }
  });

  it('flannel refuses to start without NODE_IP instead of guessing an interface', () => {
    const outcome = runDaemonSet(objects, 'kube-flannel-ds-windows-amd64', { ...node(), address: '' });
    expect(outcome.state === 'exited' && outcome.message).toContain('NODE_IP is not set');
  });

  it('kube-proxy waits for the HNS network, then starts kube-proxy.exe', () => {
    expect(runDaemonSet(objects, 'kube-proxy-windows')).toMatchObject({ state: 'waiting' });
    const started = runDaemonSet(objects, 'kube-proxy-windows', node(), [
      { name: 'flannel.4096', subnet: '10.244.1.0/24' },
    ]);
    expect(started).toMatchObject({
      state: 'running',
      program: expect.stringMatching(/\\kube-proxy\\kube-proxy\.exe$/),
    });
  });
});
