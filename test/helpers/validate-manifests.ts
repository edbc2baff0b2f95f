import { DaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { ReplicaSet } from 'kubernetes-models/apps/v1/ReplicaSet';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { CronJob } from 'kubernetes-models/batch/v1/CronJob';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { RuntimeClass } from 'kubernetes-models/node.k8s.io/v1/RuntimeClass';
import { ClusterRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole';
import { ClusterRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding';
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Pod } from 'kubernetes-models/v1/Pod';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';

// biome-ignore lint/suspicious/noExplicitAny: each model constructor takes its own data type
type ModelClass = new (data: any) => { validate(): void };

/**
 * The kinds a manifest may hold, by `apiVersion/kind`. Anything else is reported as a problem:
 * an object we cannot check must not pass as checked.
 */
export const KNOWN_KINDS: Readonly<Record<string, ModelClass>> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Namespace': Namespace,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'v1/Pod': Pod,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'apps/v1/DaemonSet': DaemonSet,
  'apps/v1/Deployment': Deployment,
  'apps/v1/ReplicaSet': ReplicaSet,
  'apps/v1/StatefulSet': StatefulSet,
  'batch/v1/CronJob': CronJob,
  'batch/v1/Job': Job,
  'node.k8s.io/v1/RuntimeClass': RuntimeClass,
  'rbac.authorization.k8s.io/v1/ClusterRole': ClusterRole,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': ClusterRoleBinding,
  'rbac.authorization.k8s.io/v1/Role': Role,
  'rbac.authorization.k8s.io/v1/RoleBinding': RoleBinding,
};

/** One problem in one object. */
export interface ManifestProblem {
  /** `Kind namespace/name` (or `document N` when the object has no usable identity). */
  object: string;
  /** JSON pointer into the object, empty for the object itself. */
  path: string;
  message: string;
}

interface AjvError {
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
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
 * Validates Kubernetes objects against the Kubernetes OpenAPI schema (kubernetes-models) plus
 * a few API-server rules. Returns every problem; an empty list means all objects are valid.
 * Unknown apiVersion/kind pairs are problems, not skips.
 */
export function validateManifestObjects(objects: readonly unknown[]): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  for (const [index, value] of objects.entries()) {
    const obj = (value ?? {}) as ObjectLike;
    const meta = obj.metadata ?? {};
    const id =
      typeof obj.kind === 'string' && typeof meta.name === 'string'
        ? `${obj.kind} ${typeof meta.namespace === 'string' ? `${meta.namespace}/` : ''}${meta.name}`
        : `document ${index + 1}`;
    const model = KNOWN_KINDS[`${String(obj.apiVersion)}/${String(obj.kind)}`];
    if (!model) {
      problems.push({
        object: id,
        path: '',
        message: `unknown apiVersion/kind ${String(obj.apiVersion)}/${String(obj.kind)}`,
      });
      continue;
    }
    try {
      new model(obj).validate();
    } catch (error) {
      const errors = ((error as { errors?: AjvError[] }).errors ?? []) as AjvError[];
      if (errors.length === 0) problems.push({ object: id, path: '', message: (error as Error).message });
      for (const e of errors) {
        const detail = e.params && Object.keys(e.params).length > 0 ? ` ${JSON.stringify(e.params)}` : '';
        problems.push({
          object: id,
          path: e.instancePath ?? '',
          message: `${e.message ?? 'invalid'}${detail}`,
        });
      }
    }
    for (const p of apiServerRules(obj)) problems.push({ object: id, ...p });
  }
  return problems;
}

/** Formats problems as `Kind ns/name /path: message` lines. */
export function formatManifestProblems(problems: readonly ManifestProblem[]): string {
  return problems.map((p) => `${p.object}${p.path ? ` ${p.path}` : ''}: ${p.message}`).join('\n');
}
