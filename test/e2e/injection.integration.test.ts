import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { type MixedClusterLab, startMixedClusterLab } from '../../fixtures/cluster-lab/mixed-lab.js';
import { offlineHostInfo } from '../../fixtures/windows-sim/cluster-commands-offline.js';
import { shQuote } from '../../src/quote/index.js';
import { loadVersions } from '../../src/versions/versions.js';
import { injectionCorpus, type Payload } from '../helpers/injection-corpus.js';
import { testTempDir } from '../helpers/temp.js';
import { labSsh } from '../playbooks-cluster/helpers.js';
import { kubemix } from './helpers.js';

// Issue 9 item 1 end to end: the injection corpus in the spec of a mixed lab (Linux hosts with the
// Kubernetes stand-ins, a Windows host over WinRM and one over SSH with PowerShell as its shell),
// through `kubemix plan` and `kubemix up`. Every value is refused (exit 2, one line naming the
// field, nothing created) or arrives literally where it lands; the canary file, which any payload
// that ran would create, never appears on this machine or on a lab host.
let lab: MixedClusterLab;
let dir: string;
let canary: string;
let clusterDir: string | undefined;

beforeAll(async () => {
  lab = await startMixedClusterLab({
    controllers: 1,
    linuxWorkers: 1,
    windowsWorkers: 1,
    windowsSshWorkers: 1,
    rebootDownMs: 300,
    scale: 0,
    name: 'injection',
  });
  dir = await testTempDir('injection');
  canary = join(dir, 'canary');
});

afterAll(async () => {
  if (clusterDir && lab && (await lab.linux.cluster.cluster()))
    await kubemix(['down', lab.specPath, '--cluster-dir', clusterDir]);
  await lab?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

// biome-ignore lint/suspicious/noExplicitAny: specs edited as loose JSON, as a user edits YAML
type Spec = Record<string, any>;
const labSpec = async (): Promise<Spec> => parse(await readFile(lab.specPath, 'utf8')) as Spec;
const group = (spec: Spec, name: string) => spec['nodes'].workers.find((g: Spec) => g['name'] === name);

let specCount = 0;
async function writeSpec(spec: Spec): Promise<string> {
  const path = join(dir, `spec-${++specCount}.yaml`);
  await writeFile(path, stringify(spec));
  return path;
}

/** Is the canary on a Linux lab host? Asked over SSH (the hosts share /tmp with this machine). */
async function canaryOnHost(host: (typeof lab.linux.hosts)[number]): Promise<boolean> {
  const ssh = labSsh(lab.linux, host);
  try {
    const result = await ssh.exec({
      command: `if [ -e ${shQuote(canary)} ]; then echo present; else echo absent; fi`,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    return result.stdout.trim() !== 'absent';
  } finally {
    await ssh.close();
  }
}

async function expectNothingRan(): Promise<void> {
  expect(existsSync(canary)).toBe(false);
  for (const host of lab.linux.hosts) expect(await canaryOnHost(host)).toBe(false);
  for (const host of [...lab.windows.hosts, ...lab.windows.sshHosts]) {
    const sim = lab.windows.host(host.name);
    expect(sim.fs.exists(canary) || sim.fs.exists(`C:${canary}`)).toBe(false);
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: what the spec rules refuse in paths
const refusedInPaths = (value: string) => /[\u0000-\u001f\u007f]|\{[{%#]/.test(value);

/** Fields that refuse every corpus value, by what they are (addresses, users, flags, versions, names). */
const REFUSING: { path: string; set: (spec: Spec, value: string) => void }[] = [
  { path: 'provider.hosts.0.address', set: (s, v) => (s['provider'].hosts[0].address = v) },
  {
    path: 'nodes.controlPlane.credentials.user',
    set: (s, v) => (s['nodes'].controlPlane.credentials.user = v),
  },
  { path: 'nodes.workers.1.credentials.user', set: (s, v) => (group(s, 'windows').credentials.user = v) },
  { path: 'nodes.workers.0.kubeletExtraArgs.0', set: (s, v) => (group(s, 'linux').kubeletExtraArgs = [v]) },
  { path: 'nodes.workers.1.kubeletExtraArgs.0', set: (s, v) => (group(s, 'windows').kubeletExtraArgs = [v]) },
  { path: 'kubernetes.version', set: (s, v) => (s['kubernetes'] = { version: v }) },
  { path: 'versions.containerd', set: (s, v) => (s['versions'] = { containerd: v }) },
  { path: 'nodes.controlPlane.endpoint', set: (s, v) => (s['nodes'].controlPlane.endpoint = v) },
  {
    path: 'nodes.workers.1.credentials.password.env',
    set: (s, v) => (group(s, 'windows').credentials.password = { env: v }),
  },
];

/** Paths take any text but control characters and template markers. */
const PATHS: { path: string; set: (spec: Spec, value: string) => void }[] = [
  { path: 'provider.knownHosts', set: (s, v) => (s['provider'].knownHosts = v) },
  {
    path: 'nodes.controlPlane.credentials.privateKey.file',
    set: (s, v) => (s['nodes'].controlPlane.credentials.privateKey = { file: v }),
  },
];

async function expectRefused(spec: Spec, field: string, payload: Payload): Promise<void> {
  const path = await writeSpec(spec);
  const cluster = join(dir, `cluster-${specCount}`);
  for (const args of [
    ['plan', path],
    ['up', path, '--cluster-dir', cluster],
  ]) {
    const result = await kubemix(args);
    const lines = result.stderr.trim().split('\n');
    expect(result.exitCode, `${args[0]} ${field} ${payload.name}: ${result.stderr}`).toBe(2);
    expect(lines, `${args[0]} ${field} ${payload.name}`).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^${path.replaceAll('.', '\\.')}:\\d+:\\d+: ${field.replaceAll('.', '\\.')}: `),
    );
    expect(existsSync(cluster)).toBe(false);
  }
}

describe('the injection corpus in a mixed lab spec', () => {
  it('plan and up refuse a value in a field that never takes one: exit 2, one line naming the field', async () => {
    const corpus = injectionCorpus(canary);
    // Every payload in a refusing field (the fields in turn), every path field with what paths refuse.
    const cases = [
      ...corpus.map((payload, i) => ({ payload, field: REFUSING[i % REFUSING.length]! })),
      ...PATHS.flatMap((field) =>
        corpus.filter((p) => refusedInPaths(p.value)).map((payload) => ({ payload, field })),
      ),
      ...corpus
        .filter((p) => p.value.includes('\0'))
        .map((payload) => ({
          payload,
          field: { path: 'vars.probe', set: (s: Spec, v: string) => (s['vars'].probe = v) },
        })),
    ];
    for (const { payload, field } of cases) {
      const spec = await labSpec();
      field.set(spec, payload.value);
      await expectRefused(spec, field.path, payload);
    }
    await expectNothingRan();
  }, 600_000);

  it('up takes every other value literally: key and known_hosts paths, a fstab path, a containerd version for PowerShell', async () => {
    // One value with every payload that a path or a var may carry (no control characters, no templates).
    const P = injectionCorpus(canary)
      .map((p) => p.value)
      .filter((v) => !refusedInPaths(v))
      .join('');
    const literal = (root: string) => join(dir, root, P);
    const spec = await labSpec();
    const sshGroup = group(spec, 'windows-ssh');
    const files: [string, string][] = [
      [lab.knownHostsPath, literal('known-hosts')],
      [lab.linux.privateKeyPath, literal('cp-key')],
      [lab.linux.privateKeyPath, literal('worker-key')],
      [sshGroup.credentials.privateKey.file, literal('win-ssh-key')],
    ];
    for (const [from, to] of files) {
      await mkdir(dirname(to), { recursive: true });
      await copyFile(from, to);
    }
    const fstab = literal('fstab');
    await mkdir(dirname(fstab), { recursive: true });
    await writeFile(fstab, '/swapfile none swap sw 0 0\n');
    spec['provider'].knownHosts = literal('known-hosts');
    spec['nodes'].controlPlane.credentials.privateKey = { file: literal('cp-key') };
    group(spec, 'linux').credentials.privateKey = { file: literal('worker-key') };
    sshGroup.credentials.privateKey = { file: literal('win-ssh-key') };
    // `vars` win over kubemix's own variables (like ansible-playbook -e), so the versions map
    // set there skips the versions: pattern and reaches Install-Containerd.ps1 as written. It keeps
    // the lab spec's `versions:` (the digests of the containerd static release the lab serves).
    spec['vars'] = { fstab_path: fstab, versions: { ...loadVersions(), ...spec['versions'], containerd: P } };
    const path = await writeSpec(spec);

    // The credential checks are steps: --detail lists every step (the summary shows tasks).
    const plan = await kubemix(['plan', path, '--detail']);
    expect(plan.exitCode, plan.stderr).toBe(0);
    // The credential check found every key at its literal path (it warns about one it cannot read).
    expect(plan.stderr).not.toContain('credentials.privateKey');

    clusterDir = join(dir, 'cluster');
    const up = await kubemix(['up', path, '--cluster-dir', clusterDir]);
    // No containerd release is called that: the Windows hosts stop where prepare-windows checks the
    // release Install-Containerd.ps1 left (containerd.exe --version), and nowhere else. (GitHub
    // would refuse the download itself; the lab serves any.)
    expect(up.exitCode, `${up.stdout}\n${up.stderr}`).toBe(1);
    expect(
      up.stderr
        .split('\n')
        .filter((l) => l.startsWith('FAILED '))
        .sort(),
    ).toEqual(
      [...lab.windowsWinrmHosts, ...lab.windowsSshHosts]
        .map((h) => `FAILED prepare-windows on ${h.name}: Install-Containerd.ps1 left the pinned containerd`)
        .sort(),
    );
    // The keys and known_hosts were read at their literal paths (or no host would have connected);
    // the swap entry of the literal fstab path was commented out.
    expect(await readFile(fstab, 'utf8')).toBe('# /swapfile none swap sw 0 0\n');
    // Both Windows hosts' Install-Containerd.ps1 got the version as one literal PowerShell argument.
    const url = `https://github.com/containerd/containerd/releases/download/v${P}/containerd-${P}-windows-amd64.tar.gz`;
    for (const host of [...lab.windows.hosts, ...lab.windows.sshHosts])
      expect(offlineHostInfo(lab.windows.host(host.name)).network).toContain(`curl.exe ${url}`);
    await expectNothingRan();
  }, 600_000);
});
