import { spawnSync } from 'node:child_process';
import {
  kubeconformFor,
  releaseVersion,
  strictSchemaLocation,
} from '../../scripts/lab/kubernetes-schemas.js';
import { loadVersions } from '../../src/versions/versions.js';

/** One problem in one object. */
export interface ManifestProblem {
  /** `Kind namespace/name` (or `document N` when the object has no usable identity). */
  object: string;
  /** JSON pointer into the object, empty for the object itself. */
  path: string;
  message: string;
}

/** One resource in kubeconform's `-output json -verbose` report. */
interface KubeconformResource {
  kind?: string;
  name?: string;
  status: 'statusValid' | 'statusInvalid' | 'statusError' | 'statusSkipped' | 'statusEmpty';
  msg?: string;
  validationErrors?: { path: string; msg: string }[];
}

/** Options of {@link validateManifestObjects}. */
export interface ValidateManifestOptions {
  /** The Kubernetes release whose schemas apply (default: `kubernetes` of playbooks/versions.yaml). */
  kubernetesVersion?: string;
}

interface PodSpecLike {
  hostNetwork?: boolean;
  securityContext?: { windowsOptions?: { hostProcess?: boolean } };
  containers?: {
    name?: string;
    volumeMounts?: { name?: string }[];
    securityContext?: { windowsOptions?: { hostProcess?: boolean } };
  }[];
  initContainers?: { name?: string; volumeMounts?: { name?: string }[] }[];
  volumes?: { name?: string }[];
}

interface ObjectLike {
  apiVersion?: unknown;
  kind?: unknown;
  metadata?: { name?: unknown; namespace?: unknown; labels?: Record<string, unknown> };
  spec?: PodSpecLike & {
    selector?: { matchLabels?: Record<string, string> };
    template?: { metadata?: { labels?: Record<string, string> }; spec?: PodSpecLike };
    /** A CronJob's Job: its pod template is one level further down. */
    jobTemplate?: {
      spec?: { template?: { metadata?: { labels?: Record<string, string> }; spec?: PodSpecLike } };
    };
  };
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/**
 * Rules the API server enforces that the OpenAPI schema cannot express (apimachinery and
 * pkg/apis/*\/validation): name format, label values, selector matching the pod template,
 * volume mounts naming declared volumes, HostProcess pods on the host network.
 */
function apiServerRules(obj: ObjectLike): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  const name = obj.metadata?.name;
  if (typeof name === 'string' && (name.length > 253 || !DNS_SUBDOMAIN.test(name))) {
    problems.push({ path: '/metadata/name', message: `"${name}" is not a lowercase RFC 1123 subdomain` });
  }
  for (const [key, value] of Object.entries(obj.metadata?.labels ?? {})) {
    if (typeof value !== 'string' || value.length > 63 || !LABEL_VALUE.test(value)) {
      problems.push({
        path: `/metadata/labels/${key}`,
        message: `invalid label value ${JSON.stringify(value)}`,
      });
    }
  }
  const template = obj.spec?.template ?? obj.spec?.jobTemplate?.spec?.template;
  if (template && obj.spec?.selector) {
    const wanted = obj.spec.selector.matchLabels ?? {};
    const have = template.metadata?.labels ?? {};
    for (const [key, value] of Object.entries(wanted)) {
      if (have[key] !== value) {
        problems.push({
          path: '/spec/template/metadata/labels',
          message: `selector ${key}=${value} does not match the template labels`,
        });
      }
    }
  }
  const podSpec: PodSpecLike | undefined = template?.spec ?? (obj.kind === 'Pod' ? obj.spec : undefined);
  if (podSpec) {
    const base = obj.spec?.jobTemplate
      ? '/spec/jobTemplate/spec/template/spec'
      : template
        ? '/spec/template/spec'
        : '/spec';
    const volumes = new Set((podSpec.volumes ?? []).map((v) => v.name));
    const containers = [...(podSpec.initContainers ?? []), ...(podSpec.containers ?? [])];
    const seen = new Set<string | undefined>();
    for (const container of containers) {
      if (seen.has(container.name))
        problems.push({
          path: `${base}/containers`,
          message: `duplicate container name "${container.name}"`,
        });
      seen.add(container.name);
      for (const mount of container.volumeMounts ?? []) {
        if (!volumes.has(mount.name)) {
          problems.push({
            path: `${base}/containers`,
            message: `container "${container.name}" mounts undeclared volume "${mount.name}"`,
          });
        }
      }
    }
    const hostProcess =
      podSpec.securityContext?.windowsOptions?.hostProcess === true ||
      (podSpec.containers ?? []).some((c) => c.securityContext?.windowsOptions?.hostProcess === true);
    if (hostProcess && podSpec.hostNetwork !== true) {
      problems.push({ path: `${base}/hostNetwork`, message: 'HostProcess pods must set hostNetwork: true' });
    }
  }
  return problems;
}

/**
 * Validates Kubernetes objects against the strict JSON schemas of one Kubernetes release with
 * kubeconform `-strict` (unknown fields, wrong types and missing required fields are problems; the
 * schemas are built offline from that release's OpenAPI spec by scripts/kubernetes-schemas.sh),
 * plus a few API-server rules. Returns every problem; an empty list means all objects are valid.
 * A kind the release does not serve is a problem, not a skip.
 */
export function validateManifestObjects(
  objects: readonly unknown[],
  options: ValidateManifestOptions = {},
): ManifestProblem[] {
  const version = releaseVersion(options.kubernetesVersion ?? loadVersions()['kubernetes']!);
  const run = spawnSync(
    kubeconformFor(version),
    [
      '-strict',
      '-kubernetes-version',
      version,
      '-schema-location',
      strictSchemaLocation(),
      '-output',
      'json',
      '-verbose',
      '-n',
      '1',
      '-',
    ],
    // JSON is YAML: one document per object, in order.
    { input: objects.map((o) => JSON.stringify(o ?? {})).join('\n---\n'), encoding: 'utf8' },
  );
  let resources: KubeconformResource[];
  try {
    resources = (JSON.parse(run.stdout) as { resources: KubeconformResource[] }).resources;
  } catch {
    throw new Error(`kubeconform failed (exit ${run.status}): ${run.stderr || run.stdout}`);
  }
  if (resources.length !== objects.length)
    throw new Error(`kubeconform reported ${resources.length} resources for ${objects.length} objects`);
  const problems: ManifestProblem[] = [];
  for (const [index, value] of objects.entries()) {
    const obj = (value ?? {}) as ObjectLike;
    const meta = obj.metadata ?? {};
    const id =
      typeof obj.kind === 'string' && typeof meta.name === 'string'
        ? `${obj.kind} ${typeof meta.namespace === 'string' ? `${meta.namespace}/` : ''}${meta.name}`
        : `document ${index + 1}`;
    const result = resources[index]!;
    if (result.status === 'statusError')
      problems.push({
        object: id,
        path: '',
        message: /could not find schema/.test(result.msg ?? '')
          ? `unknown apiVersion/kind ${String(obj.apiVersion)}/${String(obj.kind)} (no schema in Kubernetes v${version})`
          : (result.msg ?? 'kubeconform error'),
      });
    else if (result.status !== 'statusValid')
      for (const e of result.validationErrors ?? [{ path: '', msg: result.msg ?? result.status }])
        problems.push({ object: id, path: e.path, message: e.msg });
    for (const p of apiServerRules(obj)) problems.push({ object: id, ...p });
  }
  return problems;
}

/** Formats problems as `Kind ns/name /path: message` lines. */
export function formatManifestProblems(problems: readonly ManifestProblem[]): string {
  return problems.map((p) => `${p.object}${p.path ? ` ${p.path}` : ''}: ${p.message}`).join('\n');
}
