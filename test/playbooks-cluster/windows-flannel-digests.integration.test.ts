import { createHash } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { type ClusterLab, startClusterLab } from '../../fixtures/lab/cluster-lab.js';
import {
  publishWindowsFlannelRelease,
  windowsFlannelRelease,
} from '../../fixtures/lab/windows-flannel-release.js';
import {
  manifestImages,
  manifestVarsFromPlanVars,
  windowsFlannelDownloads,
} from '../../src/manifests/index.js';
import { loadVersions } from '../../src/versions/versions.js';
import { testTempDir } from '../helpers/temp.js';
import { labPlanVars, labSsh, runClusterPlays } from './helpers.js';

// install-windows-networking's first steps on a controller: the SHA-256 every Windows node's flannel
// start script checks. Unpinned (the shipped default), the controller downloads each file from the
// lab's internet (lab-made files under the upstream URLs), checks it against the publisher's .sha256
// where the release has one, and renders the digests into the ConfigMap. The lab has no cluster
// here: the run stops at `kubectl apply`, after the manifests are rendered.

const versions = loadVersions();
const release = windowsFlannelRelease(versions);
const downloads = windowsFlannelDownloads(versions, manifestImages(versions, versions['kubernetes']!));
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

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

const install = () =>
  runClusterPlays(lab, [{ file: 'install-windows-networking.yml', hosts: ['lab-01'] }], vars);

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
  it('unpinned: from the controller download, checked against the publisher .sha256 where there is one', async () => {
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
    expect(report?.msg).toBe(
      downloads
        .map(
          (d) =>
            `${d.file} ${sha256(release.get(d.url)!)} (${d.checksum_url ? "checked against its publisher's .sha256" : 'first download: its release publishes none'})`,
        )
        .join('; '),
    );
    expect(run.log).toContain(
      'taken from this download: its release publishes no checksum (pin it as versions.flanneld-windows-sha256)',
    );
  });

  it("a download that does not match its publisher's .sha256 stops the task, naming the file and the checksum URL", async () => {
    const plugins = downloads.find((d) => d.name === 'cni-plugins-windows')!;
    const { hostname, pathname } = new URL(plugins.checksum_url);
    await writeFile(join(internetDir, hostname, pathname), `${sha256('another file')}  ${plugins.file}\n`);
    const run = await install();
    const failed = run.result.records.find((r) => r.status === 'failed');
    expect(failed?.task).toBe('SHA-256 of each file Windows flannel installs');
    expect(run.log).toContain(
      `${plugins.file}: SHA-256 is ${sha256(release.get(plugins.url)!)}, but ${plugins.checksum_url} says ${sha256('another file')}`,
    );
    publishWindowsFlannelRelease(internetDir, versions);
  });
});
