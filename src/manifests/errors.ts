import { KubemixError } from '../errors/index.js';

/**
 * A manifest that cannot be rendered or read back: a missing or malformed variable (named),
 * a template error (with file and line), or a rendered document that is not a Kubernetes object.
 */
export class ManifestError extends KubemixError {
  /** The manifest concerned, e.g. `kube-flannel.yaml`. */
  readonly manifest: string;
  /** The variable at fault (dot path such as `images.flannel`), when that is the problem. */
  readonly variable?: string;
  constructor(manifest: string, message: string, options: { variable?: string; cause?: unknown } = {}) {
    super(`${manifest}: ${message}`, { exitCode: 1, cause: options.cause });
    this.manifest = manifest;
    if (options.variable !== undefined) this.variable = options.variable;
  }
}
