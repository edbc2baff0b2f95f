import { createHash } from 'node:crypto';
import { mkdir, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { type ClusterLab, startClusterLab } from '../../fixtures/lab/cluster-lab.js';
import {
  publishWindowsFlannelRelease,
  windowsFlannelRelease,
} from '../../fixtures/lab/windows-flannel-release.js';
import { LOCK_FORMAT, writeLock } from '../../src/artifacts/index.js';
import { manifestVarsFromPlanVars, windowsFlannelDownloads } from '../../src/manifests/index.js';
import { loadVersions } from '../../src/versions/versions.js';
import { testTempDir } from '../helpers/temp.js';
import { labPlanVars, labSsh, runClusterPlays } from './helpers.js';

// install-windows-networking's first steps on a controller: the SHA-256 every Windows node's flannel
// start script checks. Unpinned (the shipped default), the controller downloads each file from the
// lab's internet (what each pinned tag's release process publishes, with lab-made bytes:
// fixtures/lab/windows-release-models.ts), checks it against the digest file its publisher puts
// beside it, in that file's algorithm, and renders the digests into the ConfigMap. Offline, the
// digests come from artifacts.lock.json. The lab has no cluster here: the run stops at
// `kubectl apply`, after the manifests are rendered.

const versions = loadVersions();
const release = windowsFlannelRelease(versions);
const downloads = windowsFlannelDownloads(versions);
const digest = (algorithm: string, text: string) => createHash(algorithm).update(text, 'utf8').digest('hex');
const sha256 = (text: string) => digest('sha256', text);
/** The lab internet's file for a URL. */
const servedPath = (url: string) => join(internetDir, new URL(url).hostname, new URL(url).pathname);

let lab: ClusterLab;
let internetDir: string;
let vars: Record<string, unknown>;

beforeAll(async () => {
  internetDir = await testTempDir('lab-internet');
  publishWindowsFlannelRelease(internetDir, versions);
  lab = await startClusterLab({ count: 1, internetDir });
  const base = await labPlanVars(lab, ['lab-01']);
  // The shipped versions: no Windows flannel digest pinned.
  const unpinned = { ...(base['versions'] as Record<string, string>), ...versions };
  vars = {
    ...base,
    ...manifestVarsFromPlanVars(
      { ...base, versions: unpinned },
      {
        kubernetesVersion: versions['kubernetes']!,
        apiServerHost: lab.hosts[0]!.address,
        apiServerPort: 6443,
        windowsVersions: ['2022'],
        linuxWorkers: 0,
      },
    ),
    versions: unpinned,
    windows_nodes: [],
  };
});

afterAll(async () => {
  await lab?.stop();
  if (internetDir) await rm(internetDir, { recursive: true, force: true });
});

const install = (extra: Record<string, unknown> = {}) =>
  runClusterPlays(lab, [{ file: 'install-windows-networking.yml', hosts: ['lab-01'] }], {
    ...vars,
    ...extra,
  });

async function renderedDownloads(): Promise<{ file: string; sha256: string }[]> {
  const t = labSsh(lab, lab.hosts[0]!);
  try {
    const { stdout } = await t.exec({ command: 'cat /etc/kubernetes/kubemix/kube-flannel-windows.yaml' });
    const configMap = parseAllDocuments(stdout)
      .map((d) => d.toJS() as { kind: string; data?: Record<string, string> })
      .find((o) => o.kind === 'ConfigMap')!;
    return JSON.parse(configMap.data!['downloads.json']!);
  } finally {
    await t.close();
  }
}

describe('install-windows-networking takes the digests Windows flannel checks', () => {
  it("unpinned: from the controller's download, checked against the publisher's digest file where there is one", async () => {
    const run = await install();
    const digestStep = run.result.records.find(
      (r) => r.task === 'SHA-256 of each file Windows flannel installs',
    );
    expect(digestStep?.status, run.log.slice(-2000)).not.toBe('failed');
    expect((await renderedDownloads()).map((d) => [d.file, d.sha256])).toEqual(
      downloads.map((d) => [d.file, sha256(release.get(d.url)!)]),
    );
    const report = run.result.records.find(
      (r) => r.task === "Report the SHA-256 Windows flannel's files must have",
    );
    // The three archives' releases publish .sha512 (and .sha256): kubemix checks the .sha512.
    expect(report?.msg).toBe(
      downloads
        .map(
          (d) =>
            `${d.file} ${sha256(release.get(d.url)!)} (${d.name === 'flanneld-windows' ? 'first download: its release publishes none' : "checked against its publisher's .sha512"})`,
        )
        .join('; '),
    );
    const wcn = downloads.find((d) => d.name === 'windows-cni')!;
    expect(run.log).toContain(
      `${wcn.file}: sha512 as its publisher's digest file ${wcn.url}.sha512 says; SHA-256 ${sha256(release.get(wcn.url)!)} (pin it as versions.windows-cni-sha256)`,
    );
    expect(run.log).toContain(
      'taken from this download: its release publishes no digest file (pin it as versions.flanneld-windows-sha256)',
    );
  });

  it("a download that does not match its publisher's digest file stops the task, naming the file, the algorithm and the digest file", async () => {
    const plugins = downloads.find((d) => d.name === 'cni-plugins-windows')!;
    await writeFile(servedPath(plugins.digest_url), `${digest('sha512', 'another file')}  ${plugins.file}\n`);
    try {
      const run = await install();
      const failed = run.result.records.find((r) => r.status === 'failed');
      expect(failed?.task).toBe('SHA-256 of each file Windows flannel installs');
      expect(run.log).toContain(
        `${plugins.file}: sha512 is ${digest('sha512', release.get(plugins.url)!)}, but its publisher's digest file ${plugins.digest_url} says ${digest('sha512', 'another file')}`,
      );
    } finally {
      publishWindowsFlannelRelease(internetDir, versions);
    }
  });

  it('an asset the release does not publish (a wrong name) stops the task, naming the file and the URL', async () => {
    const wcn = downloads.find((d) => d.name === 'windows-cni')!;
    await unlink(servedPath(wcn.url));
    try {
      const run = await install();
      expect(run.result.records.find((r) => r.status === 'failed')?.task).toBe(
        'SHA-256 of each file Windows flannel installs',
      );
      expect(run.log).toContain(`${wcn.file}: cannot download ${wcn.url}`);
    } finally {
      publishWindowsFlannelRelease(internetDir, versions);
    }
  });

  it('offline: the digests artifacts.lock.json recorded, without the internet', async () => {
    const artifactsDir = await testTempDir('artifacts');
    const recorded = Object.fromEntries(downloads.map((d) => [d.name, sha256(`offline copy of ${d.file}`)]));
    await mkdir(artifactsDir, { recursive: true });
    await writeLock(artifactsDir, {
      format: LOCK_FORMAT,
      artifacts: downloads.map((d) => ({
        name: d.name,
        os: 'windows' as const,
        kind: 'file' as const,
        file: d.file,
        url: d.url,
        sha256: recorded[d.name]!,
        size: 1,
      })),
    });
    await rm(join(internetDir, 'github.com'), { recursive: true, force: true });
    try {
      const run = await install({ artifacts_dir: artifactsDir });
      const digestStep = run.result.records.find(
        (r) => r.task === 'SHA-256 of each file Windows flannel installs',
      );
      expect(digestStep?.status, run.log.slice(-2000)).not.toBe('failed');
      expect((await renderedDownloads()).map((d) => [d.file, d.sha256])).toEqual(
        downloads.map((d) => [d.file, recorded[d.name]]),
      );
    } finally {
      publishWindowsFlannelRelease(internetDir, versions);
    }
  });
});
