import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { SpecError } from '../errors/index.js';
import { packageRoot } from '../fs/package-root.js';
import { parsedPackageFile } from '../fs/parsed-files.js';
import type { DigestAlgorithm } from '../manifests/windows-release-assets.js';
import { renderString } from '../template/index.js';

/** What an artifact is, which decides how the nodes use it. */
export type ArtifactKind = 'deb' | 'file' | 'script' | 'image';
/** The OS of the nodes that need an artifact. */
export type ArtifactOs = 'linux' | 'windows';
const DIGEST_ALGORITHMS: readonly string[] = ['sha256', 'sha512'] satisfies DigestAlgorithm[];

const entrySchema = z
  .strictObject({
    name: z.string().regex(/^[a-z0-9][-a-z0-9]*$/, 'must be a lower-case name (a-z, 0-9, "-")'),
    os: z.enum(['linux', 'windows']),
    kind: z.enum(['deb', 'file', 'script', 'image']),
    file: z.string().min(1).optional(),
    url: z.string().min(1).optional(),
    apt: z
      .strictObject({
        repository: z.string().min(1),
        package: z.string().min(1),
        release: z.string().optional(),
      })
      .optional()
      .describe(
        "A .deb chosen from a flat Debian repository's index as apt would (a release's newest revision, else the newest version): its file, URL and SHA-256 come from the index",
      ),
    image: z.string().min(1).optional(),
    sha256: z.string().optional(),
    digest_url: z
      .string()
      .optional()
      .describe("The publisher's digest file beside the file (`<hex>  <name>`); empty: none"),
    digest_algorithm: z.string().optional().describe('sha256 or sha512: the algorithm of digest_url'),
    role: z
      .literal('control-plane')
      .optional()
      .describe(
        'Only the control-plane nodes copy and import it: kubeadm runs the control plane and etcd nowhere else',
      ),
    each: z
      .literal('windows-workload')
      .optional()
      .describe(
        'Rendered once per Windows workload of the cluster (plan var windows_workloads) with `workload` bound; the name gets -<version>',
      ),
  })
  .refine(
    (e) =>
      e.apt
        ? e.kind === 'deb' && e.url === undefined && e.file === undefined && e.image === undefined
        : e.file !== undefined &&
          (e.kind === 'image') === (e.image !== undefined) &&
          (e.kind === 'image') !== (e.url !== undefined),
    {
      message:
        'an image entry has `image` and `file`; an `apt` entry is a deb with neither `url` nor `file`; any other entry has `url` and `file`',
    },
  );

const fileSchema = z.strictObject({
  defaults: z.record(z.string(), z.string()).default({}),
  'kubeadm-images': z.record(
    z.string().regex(/^\d+\.\d+$/, 'keys are minor versions such as "1.31"'),
    z.strictObject({ etcd: z.string().min(1), coredns: z.string().min(1), pause: z.string().min(1) }),
  ),
  artifacts: z.array(entrySchema).min(1),
});

/** playbooks/artifacts.yaml, parsed (templates not rendered yet). */
export type ArtifactsFile = z.output<typeof fileSchema>;
/** One entry of the list, as written. */
export type ArtifactEntry = ArtifactsFile['artifacts'][number];

/** One artifact for a given cluster: every template rendered. */
export interface Artifact {
  name: string;
  os: ArtifactOs;
  kind: ArtifactKind;
  /** File name in the artifacts directory ('' for an `apt` artifact until its repository's index names it). */
  file: string;
  /** A .deb whose file, URL and SHA-256 a repository's index decides (src/artifacts/apt-resolve.ts). */
  apt?: { repository: string; package: string; release?: string };
  /** The Debian version an `apt` artifact resolved to. */
  version?: string;
  /** Upstream download URL (not for images). */
  url?: string;
  /** Container image reference (images only). */
  image?: string;
  /** Expected SHA-256 (lower-case hex) when artifacts.yaml pins one. */
  sha256?: string;
  /** The digest file the publisher puts beside the file, which a download must match. */
  digest?: { url: string; algorithm: DigestAlgorithm };
  /** Only the Windows nodes of this Windows Server version need it (`each: windows-workload`). */
  windowsVersion?: string;
  /** Only the control-plane nodes need it (`role: control-plane`). */
  role?: 'control-plane';
}

/** Path of the artifacts list shipped in the package. */
export function artifactsFilePath(): string {
  return join(packageRoot(), 'playbooks', 'artifacts.yaml');
}

/**
 * Parses the artifacts list. Pure.
 *
 * @throws SpecError naming the file and the field of every problem
 */
export function parseArtifactsFile(text: string, file = 'playbooks/artifacts.yaml'): ArtifactsFile {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (error) {
    throw new SpecError([
      { file, path: '', message: `not valid YAML: ${(error as Error).message.split('\n')[0]}` },
    ]);
  }
  // One parse per command: zod's compiled fast path would cost more than it saves (spec/validate.ts).
  const parsed = fileSchema.safeParse(raw, { jitless: true });
  if (!parsed.success)
    throw new SpecError(
      parsed.error.issues.map((issue) => ({
        file,
        path: issue.path.map(String).join('.'),
        message: issue.message,
      })),
    );
  const seen = new Map<string, number>();
  const issues = [];
  for (const [i, entry] of parsed.data.artifacts.entries()) {
    const previous = seen.get(entry.name);
    if (previous !== undefined)
      issues.push({
        file,
        path: `artifacts.${i}.name`,
        message: `"${entry.name}" is already entry ${previous}`,
      });
    seen.set(entry.name, i);
  }
  if (issues.length > 0) throw new SpecError(issues);
  return parsed.data;
}

/** Reads and parses playbooks/artifacts.yaml (or another list). */
export function loadArtifactsFile(path = artifactsFilePath()): ArtifactsFile {
  const text = readFileSync(path, 'utf8');
  return parsedPackageFile(path, text, () => parseArtifactsFile(text, path));
}

const SHA256 = /^[0-9a-f]{64}$/;

type Issue = { file: string; path: string; message: string };

/** One entry with its templates rendered; problems go to `ctx.issues`. */
function renderEntry(
  entry: ArtifactEntry,
  i: number,
  name: string,
  vars: Record<string, unknown>,
  ctx: { file: string; files: Map<string, string>; issues: Issue[] },
): Artifact {
  const { file, files, issues } = ctx;
  const render = (
    field: 'file' | 'url' | 'image' | 'sha256' | 'digest_url' | 'digest_algorithm',
  ): string | undefined => {
    const source = entry[field];
    if (source === undefined) return undefined;
    try {
      return renderString(source, vars).trim();
    } catch (error) {
      issues.push({ file, path: `artifacts.${i}.${field}`, message: (error as Error).message });
      return undefined;
    }
  };
  const fileName = render('file') ?? '';
  if (fileName !== '' && (fileName.includes('/') || fileName.includes('\\') || fileName.startsWith('.')))
    issues.push({ file, path: `artifacts.${i}.file`, message: `"${fileName}" must be a plain file name` });
  const other = fileName === '' ? undefined : files.get(fileName);
  if (other !== undefined)
    issues.push({
      file,
      path: `artifacts.${i}.file`,
      message: `"${fileName}" is also the file of ${other}`,
    });
  if (fileName !== '') files.set(fileName, name);
  const artifact: Artifact = { name, os: entry.os, kind: entry.kind, file: fileName };
  if (entry.role) artifact.role = entry.role;
  if (entry.apt) {
    const apt = (field: 'repository' | 'package' | 'release'): string => {
      try {
        return renderString(entry.apt?.[field] ?? '', vars).trim();
      } catch (error) {
        issues.push({ file, path: `artifacts.${i}.apt.${field}`, message: (error as Error).message });
        return '';
      }
    };
    const release = apt('release');
    artifact.apt = {
      repository: apt('repository'),
      package: apt('package'),
      ...(release ? { release } : {}),
    };
  }
  const url = render('url');
  if (url !== undefined) artifact.url = url;
  const image = render('image');
  if (image !== undefined) artifact.image = image;
  const sha256 = render('sha256')?.toLowerCase();
  if (sha256) {
    if (!SHA256.test(sha256))
      issues.push({
        file,
        path: `artifacts.${i}.sha256`,
        message: 'must be 64 hex digits (or render empty)',
      });
    artifact.sha256 = sha256;
  }
  const digestUrl = render('digest_url') ?? '';
  const algorithm = render('digest_algorithm') ?? '';
  if (digestUrl !== '' && DIGEST_ALGORITHMS.includes(algorithm))
    artifact.digest = { url: digestUrl, algorithm: algorithm as DigestAlgorithm };
  else if (digestUrl !== '' || algorithm !== '')
    issues.push({
      file,
      path: `artifacts.${i}.digest_algorithm`,
      message: `digest_url ${JSON.stringify(digestUrl)} needs digest_algorithm sha256 or sha512 (got ${JSON.stringify(algorithm)}); both render empty when the publisher has no digest file`,
    });
  return artifact;
}

/**
 * The artifacts one cluster needs, every template rendered with the plan's vars (`versions`,
 * `images`, `kubernetes_version`, `windows_workloads`, `windows_nodes`, ...) plus
 * `kubernetes_minor_version` and `kubeadm_images` (the list's table for that minor). Windows
 * entries only when the plan has Windows nodes; an `each: windows-workload` entry once per
 * Windows workload (`workload` bound, name suffixed with `-<version>`). Pure.
 *
 * @throws SpecError naming the list file and entry (e.g. no kubeadm images for the minor version,
 *   a template that does not render, two entries with one file name)
 */
export function renderArtifacts(
  list: ArtifactsFile,
  planVars: Readonly<Record<string, unknown>>,
  file = 'playbooks/artifacts.yaml',
): Artifact[] {
  const kubernetesVersion = String(planVars['kubernetes_version'] ?? '').replace(/^v/, '');
  const minor = /^(\d+\.\d+)\./.exec(kubernetesVersion)?.[1];
  if (minor === undefined)
    throw new SpecError([
      {
        file,
        path: '',
        message: `kubernetes_version "${kubernetesVersion}" is not a version such as 1.31.2`,
      },
    ]);
  const kubeadmImages = list['kubeadm-images'][minor];
  if (!kubeadmImages)
    throw new SpecError([
      {
        file,
        path: `kubeadm-images."${minor}"`,
        message: `no kubeadm image versions for Kubernetes ${minor} (add what \`kubeadm config images list --kubernetes-version v${kubernetesVersion}\` prints)`,
      },
    ]);
  const vars: Record<string, unknown> = {
    ...planVars,
    versions: { ...list.defaults, ...((planVars['versions'] as Record<string, string> | undefined) ?? {}) },
    kubernetes_version: kubernetesVersion,
    kubernetes_minor_version: minor,
    kubeadm_images: kubeadmImages,
  };
  const windowsNodes = planVars['windows_nodes'];
  const hasWindows = Array.isArray(windowsNodes) && windowsNodes.length > 0;
  const out: Artifact[] = [];
  const files = new Map<string, string>();
  const issues: Issue[] = [];
  const workloads = (planVars['windows_workloads'] ?? []) as { version: string }[];
  for (const [i, entry] of list.artifacts.entries()) {
    if (entry.os === 'windows' && !hasWindows) continue;
    const bindings: { name: string; vars: Record<string, unknown>; windowsVersion?: string }[] =
      entry.each === 'windows-workload'
        ? workloads.map((w) => ({
            name: `${entry.name}-${w.version}`,
            vars: { ...vars, workload: w },
            windowsVersion: w.version,
          }))
        : [{ name: entry.name, vars }];
    for (const binding of bindings) {
      const artifact = renderEntry(entry, i, binding.name, binding.vars, { file, files, issues });
      if (binding.windowsVersion !== undefined) artifact.windowsVersion = binding.windowsVersion;
      out.push(artifact);
    }
  }
  if (issues.length > 0) throw new SpecError(issues);
  return out;
}
