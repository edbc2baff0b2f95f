import { readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { SpecError, type SpecIssue, UsageError } from '../errors/index.js';
import { parseSpecSource } from './parse.js';
import { type ClusterSpec, isImageUrl } from './schema.js';
import {
  isShortForm,
  parseShortForm,
  SHORT_FORM_FLAGS,
  type ShortFormOptions,
  shortFormPath,
} from './short-form.js';
import type { SpecPath } from './spec-view.js';

/** Options of loadSpec: the short form's options, and where relative paths start. */
export interface LoadSpecOptions extends ShortFormOptions {
  /** Directory relative spec paths are resolved against (default: process.cwd()). */
  cwd?: string;
}

/** A loaded spec and where it came from. */
export interface LoadedSpec {
  spec: ClusterSpec;
  /** Absolute path of the spec file, or the short form string. */
  source: string;
  kind: 'file' | 'short-form';
  /**
   * An issue about this spec found after loading it (say, a version kubemix cannot build), worded
   * as the loader's own: the file as given with the path's line:column, or the short form's part.
   */
  issue(path: SpecPath, message: string): SpecIssue;
}

const SHORT_FORM_OPTION_NAMES = Object.keys(SHORT_FORM_FLAGS) as (keyof typeof SHORT_FORM_FLAGS)[];

async function isFile(path: string): Promise<boolean | 'directory'> {
  try {
    const info = await stat(path);
    return info.isDirectory() ? 'directory' : true;
  } catch {
    return false;
  }
}

/**
 * Loads the spec named on the command line: an existing file is read and parsed as YAML;
 * otherwise a Kubeinit short form (`k8s-libvirt-1-1-1`) is mapped onto the model.
 * Short-form options only apply to a short form: given with a file, they are a UsageError.
 *
 * @throws SpecError for an unreadable file, a missing file that is not a short form, or any
 *   problem in the spec; UsageError for short-form options given with a file
 */
export async function loadSpec(argument: string, options: LoadSpecOptions = {}): Promise<LoadedSpec> {
  const { cwd = process.cwd(), ...shortForm } = options;
  const path = resolve(cwd, argument);
  const found = await isFile(path);
  if (found === 'directory') {
    throw new SpecError([{ file: argument, path: '', message: 'is a directory, not a spec file' }]);
  }
  if (found) {
    const given = SHORT_FORM_OPTION_NAMES.filter((key) => shortForm[key] !== undefined).map(
      (key) => SHORT_FORM_FLAGS[key],
    );
    if (given.length > 0) {
      throw new UsageError(
        `${given.join(', ')} only apply to a short form like k8s-libvirt-1-1-1, not to the spec file ${argument}`,
      );
    }
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'read error';
      throw new SpecError([{ file: argument, path: '', message: `cannot read the spec file (${code})` }]);
    }
    const { spec, locate } = parseSpecSource(text, argument);
    return {
      spec: resolveSpecPaths(spec, dirname(path)),
      source: path,
      kind: 'file',
      issue: (at, message) => ({ file: argument, path: at.join('.'), message, ...locate(at) }),
    };
  }
  if (isShortForm(argument)) {
    // Image paths on the command line are relative to where the command runs.
    return {
      spec: resolveImagePaths(parseShortForm(argument, shortForm), (p) => resolve(cwd, p)),
      source: argument,
      kind: 'short-form',
      issue: (at, message) => ({ file: argument, path: shortFormPath(at, shortForm), message }),
    };
  }
  throw new SpecError([
    {
      file: argument,
      path: '',
      message: `no such spec file: ${argument} (and not a short form like k8s-libvirt-1-1-1)`,
    },
  ]);
}

/** Paths written in a spec file are relative to the file, like kubeconfig paths in kubectl. */
function resolveSpecPaths(spec: ClusterSpec, dir: string): ClusterSpec {
  const absolute = (path: string) =>
    path.startsWith('~/') ? join(homedir(), path.slice(2)) : resolve(dir, path);
  const withArtifacts = resolveImagePaths(
    spec.artifacts ? { ...spec, artifacts: { dir: absolute(spec.artifacts.dir) } } : spec,
    absolute,
  );
  if (withArtifacts.provider.type === 'ec2' || !withArtifacts.provider.knownHosts) return withArtifacts;
  return {
    ...withArtifacts,
    provider: { ...withArtifacts.provider, knownHosts: absolute(withArtifacts.provider.knownHosts) },
  };
}

/** A libvirt spec's local image paths made absolute (URLs stay as they are). */
function resolveImagePaths(spec: ClusterSpec, absolute: (path: string) => string): ClusterSpec {
  if (spec.provider.type !== 'libvirt') return spec;
  const images = Object.fromEntries(
    Object.entries(spec.provider.images).map(([key, image]) => [
      key,
      image && !isImageUrl(image.source) ? { ...image, source: absolute(image.source) } : image,
    ]),
  );
  return { ...spec, provider: { ...spec.provider, images } };
}
