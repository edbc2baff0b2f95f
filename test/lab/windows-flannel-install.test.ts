import { createHash } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { labMemberContent } from '../../fixtures/lab/state/lab-archive.js';
import { useLabInternet } from '../../fixtures/lab/state/lab-internet.js';
import { loadPowerShellParser, parsePowerShellSync } from '../../fixtures/lab/state/powershell/parser.js';
import type { KubeObject } from '../../fixtures/lab/state/types.js';
import { windowsFlannelPins, windowsFlannelRelease } from '../../fixtures/lab/windows-flannel-release.js';
import {
  type ManifestVars,
  renderManifestObjects,
  type WindowsFlannelDownload,
  windowsFlannelDownloads,
} from '../../src/manifests/index.js';
import { loadVersions } from '../../src/versions/versions.js';
import { labManifestVars, useLabReleaseInternet } from './helpers.js';
import { node, runDaemonSet } from './hostprocess-helpers.js';

// Windows flannel's start script on Microsoft's HostProcess base image (an image without files):
// what it installs, from where, and what it refuses, as the lab reads it (hostprocess-script.ts
// with Invoke-WebRequest / Get-FileHash / tar.exe against the lab's internet, which serves the
// lab-made release under the upstream URLs: fixtures/lab/windows-flannel-release.ts).

beforeAll(() => loadPowerShellParser());
afterEach(() => useLabReleaseInternet());

const DS = 'kube-flannel-ds-windows-amd64';
const versions = loadVersions();
const pins = windowsFlannelPins(versions);

/** The flannel objects rendered with these digest pins (the playbook's registered digests stand for them). */
function flannelObjects(digests: Record<string, string>): KubeObject[] {
  const pinned = { ...versions, ...digests };
  const vars: ManifestVars = {
    ...labManifestVars(),
    windows_flannel_downloads: windowsFlannelDownloads(pinned),
  };
  return renderManifestObjects('kube-flannel-windows', vars) as KubeObject[];
}

const written = (outcome: { written: { path: string; content: string | undefined }[] }, path: string) =>
  outcome.written.find((w) => w.path.toLowerCase() === path.toLowerCase())?.content;

describe('Windows flannel installs its own binaries, checked by SHA-256', () => {
  it("downloads flannel's flanneld.exe and the three CNI plugins, then starts flanneld from C:\\k\\flannel", () => {
    const outcome = runDaemonSet(flannelObjects(pins), DS);
    expect(outcome).toMatchObject({ state: 'running', program: 'C:\\k\\flannel\\flanneld.exe' });
    // The releases' own asset names (fixtures/lab/windows-release-models.ts), not kubemix's.
    const tgz = 'cni-plugin-flannel-windows-amd64-v1.9.1.tgz';
    // The release packs flannel-amd64.exe; the kubelet runs the plugin the CNI config names, flannel.exe.
    expect(written(outcome, 'C:\\opt\\cni\\bin\\flannel.exe')).toBe(
      labMemberContent(tgz, 'flannel-amd64.exe'),
    );
    expect(written(outcome, 'C:\\opt\\cni\\bin\\host-local.exe')).toBe(
      labMemberContent('cni-plugins-windows-amd64-v1.9.1.tgz', './host-local.exe'),
    );
    expect(written(outcome, 'C:\\opt\\cni\\bin\\sdnoverlay.exe')).toBe(
      labMemberContent('windows-container-networking-cni-amd64-v0.3.3.zip', 'sdnoverlay.exe'),
    );
    expect(outcome.log).toContain(
      `installed flanneld.exe (SHA-256 ${pins['flanneld-windows-sha256']!.toUpperCase()})`,
    );
  });

  it('refuses a file whose SHA-256 is not the pinned one, before anything in it is used', () => {
    const other = createHash('sha256').update('another file').digest('hex');
    const outcome = runDaemonSet(flannelObjects({ ...pins, 'windows-cni-sha256': other }), DS);
    expect(outcome.state).toBe('exited');
    if (outcome.state !== 'exited') return;
    const zip = 'windows-container-networking-cni-amd64-v0.3.3.zip';
    const actual = createHash('sha256')
      .update(
        windowsFlannelRelease(versions).get(
          `https://github.com/microsoft/windows-container-networking/releases/download/v0.3.3/${zip}`,
        )!,
      )
      .digest('hex')
      .toUpperCase();
    expect(outcome.message).toContain(`${zip}: SHA-256 is ${actual}, expected ${other}`);
    expect(written(outcome, 'C:\\opt\\cni\\bin\\sdnoverlay.exe')).toBeUndefined();
    expect(written(outcome, `C:\\k\\flannel\\downloads\\${zip}`)).toBeUndefined();
  });

  it('refuses to install without a digest (a manifest rendered outside install-windows-networking has none)', () => {
    const outcome = runDaemonSet(flannelObjects({}), DS);
    expect(outcome.state === 'exited' && outcome.message).toContain(
      'flanneld.exe: downloads.json has no SHA-256 to check it against',
    );
  });

  it('offline, installs from C:\\k\\offline without reaching the internet', () => {
    useLabInternet(undefined);
    const release = windowsFlannelRelease(versions);
    const hostFiles = Object.fromEntries(
      downloads().map((d) => [`C:\\k\\offline\\${d.file}`, release.get(d.url)!]),
    );
    const outcome = runDaemonSet(flannelObjects(pins), DS, { ...node(), leftovers: { hostFiles } });
    expect(outcome).toMatchObject({ state: 'running', program: 'C:\\k\\flannel\\flanneld.exe' });
    expect(outcome.log.some((l) => l.startsWith('downloading'))).toBe(false);
  });

  it('a node without internet and without an offline copy stops at the first download', () => {
    useLabInternet(undefined);
    const outcome = runDaemonSet(flannelObjects(pins), DS);
    expect(outcome.state === 'exited' && outcome.message).toContain(
      "Invoke-WebRequest : The remote name could not be resolved: 'github.com'",
    );
  });
});

/** The downloads as the pinned objects name them. */
const downloads = (): WindowsFlannelDownload[] => windowsFlannelDownloads({ ...versions, ...pins });

/** What a start left in C:\\k\\flannel (its downloads and their unpacked members), as the next start finds it. */
function leftBehind(outcome: { written: { path: string; content: string | undefined }[] }) {
  return Object.fromEntries(
    outcome.written
      .filter((w) => w.content !== undefined && w.path.toLowerCase().startsWith('c:\\k\\flannel\\'))
      .map((w) => [w.path, w.content!]),
  );
}

describe('Windows flannel starts again without GitHub (a pod restart, a node reboot)', () => {
  it('reuses the downloads of its first start whose SHA-256 matches, with the internet gone', () => {
    const first = runDaemonSet(flannelObjects(pins), DS);
    expect(first.state).toBe('running');
    useLabInternet(undefined);
    const again = runDaemonSet(flannelObjects(pins), DS, {
      ...node(),
      leftovers: { hostFiles: leftBehind(first) },
    });
    expect(again).toMatchObject({ state: 'running', program: 'C:\\k\\flannel\\flanneld.exe' });
    expect(again.log.filter((l) => l.startsWith('downloading'))).toEqual([]);
    expect(again.log.filter((l) => l.startsWith('reusing'))).toEqual(
      downloads().map(
        (d) =>
          `reusing C:\\k\\flannel\\downloads\\${d.file} (SHA-256 ${pins[d.sha256_entry]!.toUpperCase()})`,
      ),
    );
    expect(written(again, 'C:\\opt\\cni\\bin\\sdnoverlay.exe')).toBe(
      labMemberContent('windows-container-networking-cni-amd64-v0.3.3.zip', 'sdnoverlay.exe'),
    );
  });

  it('downloads again a kept file whose SHA-256 is wrong, and only that one', () => {
    const first = runDaemonSet(flannelObjects(pins), DS);
    const kept = leftBehind(first);
    const zip = 'C:\\k\\flannel\\downloads\\windows-container-networking-cni-amd64-v0.3.3.zip';
    expect(kept[zip]).toBeDefined();
    kept[zip] = 'a truncated download\n';
    const again = runDaemonSet(flannelObjects(pins), DS, { ...node(), leftovers: { hostFiles: kept } });
    expect(again).toMatchObject({ state: 'running', program: 'C:\\k\\flannel\\flanneld.exe' });
    const windowsCni = downloads().find((d) => d.name === 'windows-cni')!;
    expect(again.log.filter((l) => l.startsWith('downloading'))).toEqual([`downloading ${windowsCni.url}`]);
    expect(written(again, zip)).toBe(windowsFlannelRelease(versions).get(windowsCni.url));
  });
});

describe('Windows flannel downloads without a progress bar', () => {
  it("sets $ProgressPreference = 'SilentlyContinue' for the whole script, before its first Invoke-WebRequest", () => {
    // Windows PowerShell 5.1's progress bar makes Invoke-WebRequest many times slower
    // (PowerShell/PowerShell#2138). The lab does not model time, so this reads the script itself.
    const configMap = flannelObjects(pins).find((o) => o.kind === 'ConfigMap')!;
    const script = (configMap['data'] as Record<string, string>)['run.ps1']!;
    const list = parsePowerShellSync(script).namedChildren.find((n) => n?.type === 'statement_list')!;
    const statements = list.namedChildren.filter((n) => n !== null);
    const first = (test: (n: (typeof statements)[number]) => boolean) => statements.findIndex(test);
    const progress = first((n) => /^\$ProgressPreference\s*=\s*'SilentlyContinue'$/i.test(n.text.trim()));
    const download = first((n) =>
      n.descendantsOfType('command_name').some((c) => c?.text.toLowerCase() === 'invoke-webrequest'),
    );
    expect(download).toBeGreaterThan(0);
    expect(progress).toBeGreaterThanOrEqual(0);
    expect(progress).toBeLessThan(download);
  });
});
