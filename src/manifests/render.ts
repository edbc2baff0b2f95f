import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import nunjucks from 'nunjucks';
import { parseAllDocuments } from 'yaml';
import { packageRoot } from '../fs/package-root.js';
import { ManifestError } from './errors.js';
import { checkManifestVars, type ManifestVars } from './vars.js';

/** The manifests kubemix ships (playbooks/templates/manifests/<name>.yaml.j2). */
export const MANIFEST_NAMES = [
  'kube-flannel',
  'kube-flannel-windows',
  'kube-proxy-windows',
  'runtimeclasses',
  'win-webserver',
  'linux-netexec',
] as const;

/** Name of a shipped manifest. */
export type ManifestName = (typeof MANIFEST_NAMES)[number];

/** One rendered Kubernetes object, as parsed from YAML. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; [key: string]: unknown };
  [key: string]: unknown;
}

/** Directory of the manifest templates (with the trailing slash the template loader wants). */
export function manifestTemplateDir(): string {
  return `${join(packageRoot(), 'playbooks', 'templates', 'manifests')}/`;
}

/** Path of one manifest template. */
export function manifestTemplatePath(name: ManifestName): string {
  return `${manifestTemplateDir()}${name}.yaml.j2`;
}

const env = new nunjucks.Environment([], { autoescape: false, throwOnUndefined: true });

/** The `{{ ... }}` expression nunjucks points at with `[Line N, Column M]`, without its filters. */
function expressionAt(source: string, line: number, column: number): string | undefined {
  const text = source.split('\n')[line - 1];
  if (text === undefined) return undefined;
  const expressions = [...text.matchAll(/\{\{-?\s*(.*?)\s*-?\}\}/g)];
  const hit = expressions.find((m) => (m.index ?? 0) + 1 >= column) ?? expressions.at(-1);
  return hit?.[1]?.split('|')[0]?.trim();
}

/**
 * Renders template text with nunjucks (`throwOnUndefined`). An undefined value fails with a
 * ManifestError naming the expression and the template line; `file` names the template in messages.
 */
export function renderTemplateSource(source: string, vars: object, file: string): string {
  try {
    return new nunjucks.Template(source, env, file, true).render(vars);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const at = /\[Line (\d+), Column (\d+)\]/.exec(message);
    const line = at ? Number(at[1]) : undefined;
    const where = line === undefined ? file : `${file}:${line}`;
    if (at && /undefined value/.test(message)) {
      const expression = expressionAt(source, line!, Number(at[2]));
      throw new ManifestError(where, `variable "${expression ?? '?'}" is undefined`, {
        ...(expression === undefined ? {} : { variable: expression }),
        cause: error,
      });
    }
    const detail = message
      .replace(/^\([^)]*\)\s*(\[Line \d+, Column \d+\])?\s*/, '')
      .replace(/\s*\n\s*/g, ' ');
    throw new ManifestError(where, `template error: ${detail}`, { cause: error });
  }
}

/**
 * Renders one shipped manifest to YAML text (several documents separated by `---`).
 * The vars are checked first: a missing or malformed one fails with a ManifestError naming it.
 */
export function renderManifest(name: ManifestName, vars: ManifestVars): string {
  const file = `${name}.yaml`;
  if (!MANIFEST_NAMES.includes(name)) {
    throw new ManifestError(file, `unknown manifest (known: ${MANIFEST_NAMES.join(', ')})`);
  }
  checkManifestVars(file, vars);
  const path = manifestTemplatePath(name);
  return renderTemplateSource(readFileSync(path, 'utf8'), vars, `${name}.yaml.j2`);
}

/**
 * Parses rendered manifest YAML into Kubernetes objects (empty documents dropped). A YAML error
 * or a document without apiVersion, kind and metadata.name fails with a ManifestError.
 */
export function parseManifestObjects(yamlText: string, file: string): KubeObject[] {
  const objects: KubeObject[] = [];
  for (const [index, doc] of parseAllDocuments(yamlText).entries()) {
    if (doc.errors.length > 0) {
      throw new ManifestError(file, `document ${index + 1} is not valid YAML: ${doc.errors[0]!.message}`);
    }
    const value = doc.toJS() as unknown;
    if (value === null || value === undefined) continue;
    const obj = value as Partial<KubeObject>;
    if (
      typeof obj.apiVersion !== 'string' ||
      typeof obj.kind !== 'string' ||
      typeof obj.metadata?.name !== 'string'
    ) {
      throw new ManifestError(
        file,
        `document ${index + 1} is not a Kubernetes object (needs apiVersion, kind, metadata.name)`,
      );
    }
    objects.push(obj as KubeObject);
  }
  return objects;
}

/** Renders one shipped manifest and parses it into its Kubernetes objects. */
export function renderManifestObjects(name: ManifestName, vars: ManifestVars): KubeObject[] {
  return parseManifestObjects(renderManifest(name, vars), `${name}.yaml`);
}
