import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildImageArchive } from '../../fixtures/artifacts/offline-fixtures.js';
import type { ClusterState } from '../../fixtures/lab/cluster-state.js';
import { standInDigest } from '../../fixtures/lab/state/image-compat.js';
import { registerClusterCommands } from '../../fixtures/windows-sim/cluster-commands.js';
import { offlineHostInfo } from '../../fixtures/windows-sim/cluster-commands-offline.js';
import { pinnedScriptUrls } from '../../fixtures/windows-sim/cluster-commands-support.js';
import { containerdImages } from '../../fixtures/windows-sim/containerd-images.js';
import { WindowsSimulator } from '../../fixtures/windows-sim/simulator.js';
import { windowsWorkload } from '../../src/manifests/index.js';
import { commandAction } from '../../src/modules/windows/command-common.js';
import { outcomeFromResult } from '../../src/modules/windows/script.js';
import { winGetUrlModule, winGetUrlScript } from '../../src/modules/windows/win-get-url.js';
import { winShellBody, winShellModule } from '../../src/modules/windows/win-shell.js';
import { playbooksDir } from '../../src/playbook/index.js';
import { evaluateCondition, renderString } from '../../src/template/index.js';
import { loadVersions } from '../../src/versions/versions.js';
import { testTempDir } from '../helpers/temp.js';
import { initialisedState } from '../lab/helpers.js';
import { type Ran, runScript } from './helpers.js';

// containerd's image store on simulated Windows hosts (fixtures/windows-sim/containerd-images.ts):
// ctr.exe images pull / import --local as containerd v2.3.4's ctr behaves, prepare-windows' pre-pull
// script exactly as the playbook renders it, and the images reported to the lab cluster.
let sim: WindowsSimulator;
let state: ClusterState;
let init: { token: string; caCertHash: string };
let failuresFile: string;

const CTR = "& 'C:/Program Files/containerd/ctr.exe'";
const LTSC2019 = 'mcr.microsoft.com/windows/servercore:ltsc2019';
const LTSC2022 = 'mcr.microsoft.com/windows/servercore:ltsc2022';

function shell(cmd: string, host: string): Promise<Ran> {
  const args = winShellModule.parseArgs({ cmd });
  return runScript(sim, host, commandAction('win_shell', args, winShellBody(args)).command);
}

/** The pre-pull step's command, rendered from playbooks/cluster/prepare-windows.yml for a node of `version`. */
async function prePullCommand(host: string, version: '2019' | '2022'): Promise<string> {
  const file = join(playbooksDir(), 'cluster', 'prepare-windows.yml');
  const tasks = parse(await readFile(file, 'utf8')) as { name: string; win_shell?: string }[];
  const step = tasks.find((t) => t.name.startsWith("Pull the node's workload image"));
  expect(step?.win_shell, `${file} has the pre-pull step`).toBeDefined();
  return renderString(step!.win_shell!, {
    inventory_hostname: host,
    windows_workload_by_node: { [host]: windowsWorkload(version) },
  });
}

/** containerd installed and running, as prepare-windows leaves it before the pre-pull. */
async function withContainerd(host: string): Promise<void> {
  const h = sim.host(host);
  h.fs.mkdir('C:/k');
  const [installContainerd] = pinnedScriptUrls(loadVersions());
  const got = await runScript(
    sim,
    host,
    winGetUrlScript(
      winGetUrlModule.parseArgs({ url: installContainerd!.url, dest: 'C:/k/Install-Containerd.ps1' }),
      false,
    ),
  );
  expect(
    outcomeFromResult('win_get_url', {
      command: '',
      exitCode: got.code,
      stdout: got.stdout,
      stderr: got.stderr,
      durationMs: 1,
      failed: false,
      timedOut: false,
    }).failed,
  ).toBe(false);
  // As prepare-windows runs it: the script installs the features and asks for a reboot, then
  // installs containerd when run again after it.
  const install =
    "& C:/k/Install-Containerd.ps1 -ContainerDVersion 1.7.22 -skipHypervisorSupportCheck -CNIBinPath 'c:/opt/cni/bin' -CNIConfigPath 'c:/etc/cni/net.d'";
  expect((await shell(install, host)).stdout).toContain('Please reboot and re-run this script.');
  h.boot();
  const installed = await shell(install, host);
  expect(installed.code, installed.stderr).toBe(0);
  expect(h.service('containerd')?.state).toBe('running');
}

beforeEach(async () => {
  ({ state, init } = await initialisedState());
  sim = new WindowsSimulator();
  sim.addHost({ name: 'win2022', windowsVersion: '2022', rebootDownMs: 20 });
  sim.addHost({ name: 'win2019', windowsVersion: '2019', rebootDownMs: 20 });
  failuresFile = join(await testTempDir('containerd-images'), 'f.json');
  registerClusterCommands(sim, { stateDir: state.dir, failuresFile });
  await withContainerd('win2022');
  await withContainerd('win2019');
});

afterEach(() => sim.dispose());

describe('ctr.exe images pull', () => {
  it('pulls a known image of the host build: progress table, unpacking for windows/amd64, done', async () => {
    const ran = await shell(`${CTR} -n k8s.io images pull --local ${LTSC2022}`, 'win2022');
    expect(ran).toMatchObject({ code: 0, stderr: '' });
    const lines = ran.stdout.split('\r\n');
    expect(
      lines.some((l) => /^mcr\.microsoft\.com\/windows\/servercore:ltsc2022: +resolved +\|/.test(l)),
    ).toBe(true);
    expect(lines.filter((l) => l.startsWith('elapsed: '))).toHaveLength(2);
    expect(lines).toContain(`unpacking windows/amd64 ${standInDigest(LTSC2022)}...`);
    expect(lines.at(-2)).toMatch(/^done: [\d.]+s\t$/);
    expect([...containerdImages(sim.host('win2022')).values()]).toEqual([
      { ref: LTSC2022, build: '10.0.20348' },
    ]);
    expect(offlineHostInfo(sim.host('win2022')).images).toEqual([LTSC2022]);
  });

  it('fetches but refuses to unpack an image of another build, unless --platform windows/amd64 drops the OS version', async () => {
    const refused = await shell(`${CTR} -n k8s.io images pull --local ${LTSC2022}`, 'win2019');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(`unpacking windows/amd64 ${standInDigest(LTSC2022)}...`);
    expect(refused.stderr).toBe(
      `ctr: no match for platform in manifest ${standInDigest(LTSC2022)}: not found\r\n`,
    );
    expect(containerdImages(sim.host('win2019')).size).toBe(0);
    const forced = await shell(
      `${CTR} -n k8s.io images pull --local --platform windows/amd64 ${LTSC2022}`,
      'win2019',
    );
    expect(forced.code).toBe(0);
    expect(containerdImages(sim.host('win2019')).get(LTSC2022)).toEqual({
      ref: LTSC2022,
      build: '10.0.20348',
    });
  });

  it("answers the transfer-service forms (ctr 2.x's default, without --local) as not simulated", async () => {
    for (const verb of ['pull', 'import']) {
      const ran = await shell(`${CTR} -n k8s.io images ${verb} ${LTSC2022}`, 'win2022');
      expect(ran.code).toBe(1);
      expect(ran.stderr).toMatch(
        /^not simulated: ctr\.exe images (pull|import) through containerd 2\.x's transfer service/,
      );
    }
    expect(containerdImages(sim.host('win2022')).size).toBe(0);
  });

  it('fails on a reference the lab does not know, as a registry 404 does', async () => {
    const ran = await shell(`${CTR} -n k8s.io images pull --local example.com/nope:1`, 'win2022');
    expect(ran.code).toBe(1);
    expect(ran.stderr).toBe(
      'ctr: failed to resolve reference "example.com/nope:1": example.com/nope:1: not found\r\n',
    );
  });

  it("refuses a flag ctr does not define with urfave/cli's words, before pulling anything", async () => {
    const sub = await shell(
      `${CTR} -n k8s.io images pull --local --platfrom windows/amd64 ${LTSC2022}`,
      'win2022',
    );
    expect(sub).toMatchObject({
      code: 1,
      stdout: 'Incorrect Usage: flag provided but not defined: -platfrom\r\n',
      stderr: 'ctr: flag provided but not defined: -platfrom\r\n',
    });
    const global = await shell(`${CTR} --namespac k8s.io images ls`, 'win2022');
    expect(global.stdout).toBe('Incorrect Usage. flag provided but not defined: -namespac\r\n');
    expect(containerdImages(sim.host('win2022')).size).toBe(0);
  });

  it('cannot reach containerd before it runs', async () => {
    sim.host('win2022').service('containerd')!.state = 'stopped';
    const ran = await shell(`${CTR} -n k8s.io images pull --local ${LTSC2022}`, 'win2022');
    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(/^ctr: failed to dial "\\\\\.\\pipe\\containerd-containerd"/);
  });
});

describe("prepare-windows' pre-pull step, as the playbook renders it", () => {
  it("pulls the node's own version's image and prints the pull with one progress line, not ctr's table", async () => {
    // One injected failure on win2019 (the lab's failure switch, name `ctr.exe pull`): the step's retry takes the next.
    await writeFile(failuresFile, JSON.stringify({ 'ctr.exe pull@win2019': 1 }));
    const injected = await shell(await prePullCommand('win2019', '2019'), 'win2019');
    expect(injected.code).toBe(1);
    expect(injected.stdout).toBe(
      'ctr: failure injected by the kubemix lab: ctr.exe pull@win2019 fails on win2019 (0 more injected failures left)\r\n',
    );
    for (const [host, version, image, build] of [
      ['win2019', '2019', LTSC2019, '10.0.17763'],
      ['win2022', '2022', LTSC2022, '10.0.20348'],
    ] as const) {
      const ran = await shell(await prePullCommand(host, version), host);
      expect(ran, host).toMatchObject({ code: 0, stderr: '' });
      const lines = ran.stdout.trimEnd().split('\r\n');
      // ctr's table rows are gone; the first elapsed line stays (the next only after 15 s).
      expect(lines[0]).toMatch(/^elapsed: 0\.0 *s total: /);
      expect(lines.filter((l) => l.startsWith('elapsed:'))).toHaveLength(1);
      expect(lines.slice(1)).toEqual([
        `unpacking windows/amd64 ${standInDigest(image)}...`,
        expect.stringMatching(/^done: /),
      ]);
      expect([...containerdImages(sim.host(host)).values()]).toEqual([{ ref: image, build }]);
    }
  });

  it("fails with ctr's error and exit code when the image does not fit the host", async () => {
    const ran = await shell(await prePullCommand('win2019', '2022'), 'win2019');
    expect(ran.code).toBe(1);
    // 2>&1: ctr's error joins the output.
    expect(ran.stdout).toContain(
      `ctr: no match for platform in manifest ${standInDigest(LTSC2022)}: not found`,
    );
  });
});

describe('ctr.exe images import', () => {
  it('refuses an archive of another build, as ctr unpacks for the host platform', async () => {
    const archive = async (ref: string) => {
      const path = join(await testTempDir('containerd-images'), 'image.tar');
      await buildImageArchive(path, ref);
      return readFile(path);
    };
    sim.host('win2019').fs.write('C:/k/offline/servercore-ltsc2022.tar', await archive(LTSC2022));
    const ran = await shell(
      `${CTR} -n k8s.io images import --local C:/k/offline/servercore-ltsc2022.tar`,
      'win2019',
    );
    expect(ran.code).toBe(1);
    expect(ran.stderr).toBe(
      `ctr: no match for platform in manifest ${standInDigest(LTSC2022)}: not found\r\n`,
    );
    sim.host('win2019').fs.write('C:/k/offline/servercore-ltsc2019.tar', await archive(LTSC2019));
    const ok = await shell(
      `${CTR} -n k8s.io images import --local C:/k/offline/servercore-ltsc2019.tar`,
      'win2019',
    );
    expect(ok).toMatchObject({
      code: 0,
      stdout: `unpacking ${LTSC2019} (${standInDigest(LTSC2019)})...done\r\n`,
    });
  });
});

describe('the images reach the lab cluster as the kubelet reports them', () => {
  it('a pre-pulled image is in the Node status after the join, and a later pull updates it', async () => {
    await shell(await prePullCommand('win2022', '2022'), 'win2022');
    const host = sim.host('win2022');
    host.fs.write('C:/k/kubelet.exe', 'kubemix lab stand-in for kubelet.exe v1.36.4');
    host.fs.write('C:/k/kubeadm.exe', 'kubemix lab stand-in for kubeadm.exe v1.36.4');
    host.fs.write(
      'C:/k/kubeadm-join.yaml',
      `apiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\ndiscovery:\n  bootstrapToken:\n    apiServerEndpoint: "10.233.1.2:6443"\n    token: "${init.token}"\n    caCertHashes:\n      - "${init.caCertHash}"\nnodeRegistration:\n  name: win2022\n`,
    );
    const joined = await shell('& C:/k/kubeadm.exe join --config C:/k/kubeadm-join.yaml', 'win2022');
    expect(joined.code, joined.stderr).toBe(0);
    const images = async () =>
      ((await state.getObject('Node', undefined, 'win2022'))!['status'] as { images?: { names: string[] }[] })
        .images;
    expect(await images()).toEqual([{ names: [LTSC2022] }]);
    await shell(`${CTR} -n k8s.io images pull --local --platform windows/amd64 ${LTSC2019}`, 'win2022');
    expect(await images()).toEqual([{ names: [LTSC2019] }, { names: [LTSC2022] }]);
  });
});

describe("prepare-windows' offline import", () => {
  it("imports the per-version images of the node's own Windows version only", async () => {
    const file = join(playbooksDir(), 'cluster', 'prepare-windows.yml');
    const tasks = parse(await readFile(file, 'utf8')) as { name: string; when?: string }[];
    const step = tasks.find((t) => t.name.startsWith('Import the Windows container images'));
    expect(step?.when).toBeDefined();
    const imported = (node: string, version: '2019' | '2022') =>
      [
        { name: 'windows-pause', os: 'windows', kind: 'image' },
        { name: 'servercore-2019', os: 'windows', kind: 'image', windowsVersion: '2019' },
        { name: 'servercore-2022', os: 'windows', kind: 'image', windowsVersion: '2022' },
        { name: 'flannel', os: 'linux', kind: 'image' },
      ]
        .filter((item) =>
          evaluateCondition(step!.when, {
            item,
            artifacts_dir: '/a',
            inventory_hostname: node,
            windows_workload_by_node: { [node]: windowsWorkload(version) },
          }),
        )
        .map((item) => item.name);
    expect(imported('win-01', '2019')).toEqual(['windows-pause', 'servercore-2019']);
    expect(imported('win-02', '2022')).toEqual(['windows-pause', 'servercore-2022']);
  });
});
