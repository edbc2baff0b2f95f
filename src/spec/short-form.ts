import { SpecError, type SpecIssue } from '../errors/index.js';
import type { WindowsVersion } from '../types/windows.js';
import { parseHypervisorAddress } from './hypervisor-address.js';
import { type ClusterSpec, type ClusterSpecInput, LOCAL_HYPERVISOR } from './schema.js';
import type { SpecPath } from './spec-view.js';
import { validateSpecInput } from './validate.js';

/** Options that complete a Kubeinit short form (the CLI's flags). */
export interface ShortFormOptions {
  /** How many of the computes are Windows workers (default 0). */
  windowsWorkers?: number;
  windowsVersion?: WindowsVersion;
  /** Hypervisor addresses, `host`, `user@host` or `user@host:port`; default: the local machine. */
  hypervisors?: string[];
  kubernetesVersion?: string;
  /** Cluster name; default: the short form itself. */
  name?: string;
  /** Linux base image: a local path or an http(s) URL (default: the pinned Debian cloud image). */
  linuxImage?: string;
  linuxImageSha256?: string;
  /** Windows Server evaluation ISO: a local path or an http(s) URL. */
  windowsIso?: string;
  windowsIsoSha256?: string;
  /** virtio-win driver ISO: a local path or an http(s) URL. */
  virtioIso?: string;
  virtioIsoSha256?: string;
  /** The guests' network (CIDR); default 10.0.0.0/24. */
  network?: string;
}

/**
 * The command-line flag of each short-form option: the one place that maps option names to flags,
 * so every message about a short form names what the user typed (`--windows-iso`), never
 * `options.windowsIso`.
 */
export const SHORT_FORM_FLAGS = {
  windowsWorkers: '--windows-workers',
  windowsVersion: '--windows-version',
  hypervisors: '--hypervisor',
  kubernetesVersion: '--kubernetes-version',
  name: '--name',
  linuxImage: '--linux-image',
  linuxImageSha256: '--linux-image-sha256',
  windowsIso: '--windows-iso',
  windowsIsoSha256: '--windows-iso-sha256',
  virtioIso: '--virtio-iso',
  virtioIsoSha256: '--virtio-iso-sha256',
  network: '--network',
} as const satisfies Record<keyof ShortFormOptions, `--${string}`>;

const flag = (option: keyof ShortFormOptions) => SHORT_FORM_FLAGS[option];

/** Image options of the short form: spec key, option names. */
const IMAGE_OPTIONS = [
  { key: 'linux', source: 'linuxImage', sha256: 'linuxImageSha256' },
  { key: 'windows', source: 'windowsIso', sha256: 'windowsIsoSha256' },
  { key: 'virtio', source: 'virtioIso', sha256: 'virtioIsoSha256' },
] as const;

/** Kubeinit's `<distro>-<driver>-<controllers>-<computes>-<hypervisors>`, e.g. `k8s-libvirt-1-1-1`. */
const SHORT_FORM_PATTERN = /^([a-z][a-z0-9]*)-([a-z][a-z0-9]*)-(\d+)-(\d+)-(\d+)$/;

export const SUPPORTED_DISTROS = ['k8s'] as const;
export const SHORT_FORM_DRIVERS = ['libvirt'] as const;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** True when the text has the short form's shape (its parts are checked by parseShortForm). */
export function isShortForm(text: string): boolean {
  return SHORT_FORM_PATTERN.test(text);
}

/** Where model paths come from in a short form, so issues name the part to change. */
export function shortFormPath(path: SpecPath, options: ShortFormOptions): string {
  const [top, second, third, fourth] = path;
  if (top === 'name') return options.name === undefined ? 'name' : flag('name');
  if (top === 'kubernetes') return flag('kubernetesVersion');
  if (top === 'nodes' && second === 'controlPlane') return 'controllers';
  if (top === 'nodes' && second === 'workers' && fourth === 'windowsVersion') return flag('windowsVersion');
  if (top === 'nodes' && second === 'workers') return 'computes';
  if (top === 'provider' && second === 'hypervisors' && options.hypervisors)
    return third === undefined ? flag('hypervisors') : `${flag('hypervisors')} ${Number(third) + 1}`;
  if (top === 'provider' && second === 'network') return flag('network');
  const image = IMAGE_OPTIONS.find((o) => top === 'provider' && second === 'images' && third === o.key);
  // The image itself (missing) or its source is the path/URL flag; only its digest is the -sha256 one.
  if (image) return flag(fourth === 'sha256' ? image.sha256 : image.source);
  if (top === 'provider') return 'hypervisors';
  return path.join('.');
}

/**
 * Builds the spec input a short form stands for, without validating it against the schema.
 *
 * @throws SpecError when a part of the short form or an option is wrong (every such problem)
 */
export function shortFormInput(text: string, options: ShortFormOptions = {}): ClusterSpecInput {
  const issues: SpecIssue[] = [];
  const problem = (path: string, message: string) => issues.push({ file: text, path, message });
  const match = SHORT_FORM_PATTERN.exec(text);
  if (!match) {
    problem(
      '',
      'is not a short form like k8s-libvirt-1-1-1 (<distro>-<driver>-<controllers>-<computes>-<hypervisors>)',
    );
    throw new SpecError(issues);
  }
  const [, distro = '', driver = '', controllersText = '', computesText = '', hypervisorsText = ''] = match;
  const [controllers, computes, hypervisorCount] = [controllersText, computesText, hypervisorsText].map(
    Number,
  ) as [number, number, number];

  if (!(SUPPORTED_DISTROS as readonly string[]).includes(distro)) {
    problem('distro', `distro "${distro}" is not supported; supported: ${SUPPORTED_DISTROS.join(', ')}`);
  }
  if (driver === 'ec2' || driver === 'static') {
    problem(
      'driver',
      `driver "${driver}" needs a YAML spec file (provider type ${driver}); the short form only builds ${SHORT_FORM_DRIVERS.join(', ')} clusters`,
    );
  } else if (!(SHORT_FORM_DRIVERS as readonly string[]).includes(driver)) {
    problem(
      'driver',
      `driver "${driver}" is not supported; supported: ${SHORT_FORM_DRIVERS.join(', ')} (ec2 and static need a YAML spec file)`,
    );
  }
  if (![1, 3, 5].includes(controllers))
    problem('controllers', `${controllers} controllers: must be 1, 3 or 5 (etcd needs an odd quorum)`);
  if (hypervisorCount < 1) problem('hypervisors', 'must be at least 1');

  const windowsWorkers = options.windowsWorkers ?? 0;
  if (!Number.isInteger(windowsWorkers) || windowsWorkers < 0) {
    problem(flag('windowsWorkers'), 'must be a whole number >= 0');
  } else if (windowsWorkers > computes) {
    problem(
      flag('windowsWorkers'),
      `${plural(windowsWorkers, 'Windows worker')} but the short form has only ${plural(computes, 'compute')}`,
    );
  }

  // Without Windows workers the version would silently apply to nothing.
  if (options.windowsVersion !== undefined && windowsWorkers === 0)
    problem(
      flag('windowsVersion'),
      `the short form has no Windows workers to give Windows Server ${options.windowsVersion}; add ${flag('windowsWorkers')} N`,
    );

  const hypervisors: NonNullable<Extract<ClusterSpecInput['provider'], { type: 'libvirt' }>['hypervisors']> =
    [];
  const name = (i: number) => `hypervisor-${String(i + 1).padStart(2, '0')}`;
  if (options.hypervisors === undefined) {
    if (hypervisorCount > 1) {
      problem(
        'hypervisors',
        `${hypervisorCount} hypervisors need their addresses (${flag('hypervisors')} ADDRESS, once each); without them the local machine is the only hypervisor`,
      );
    }
    hypervisors.push({ ...LOCAL_HYPERVISOR });
  } else {
    if (options.hypervisors.length !== hypervisorCount) {
      problem(
        flag('hypervisors'),
        `the short form asks for ${plural(hypervisorCount, 'hypervisor')} but ${options.hypervisors.length} address${options.hypervisors.length === 1 ? ' is' : 'es are'} given`,
      );
    }
    options.hypervisors.forEach((text, i) => {
      const parsed = parseHypervisorAddress(text);
      if (typeof parsed === 'string') {
        problem(`${flag('hypervisors')} ${i + 1}`, `hypervisor address ${i + 1} ${parsed}`);
        return;
      }
      const hypervisor: (typeof hypervisors)[number] = { name: name(i), address: parsed.address };
      if (parsed.port !== undefined) hypervisor.port = parsed.port;
      if (parsed.user !== undefined) hypervisor.credentials = { user: parsed.user };
      hypervisors.push(hypervisor);
    });
  }
  const images: Record<string, { source: string; sha256?: string }> = {};
  for (const option of IMAGE_OPTIONS) {
    const source = options[option.source];
    const sha256 = options[option.sha256];
    if (source === undefined) {
      if (sha256 !== undefined)
        problem(flag(option.sha256), `is given without ${flag(option.source)} (the image it verifies)`);
      continue;
    }
    images[option.key] = sha256 === undefined ? { source } : { source, sha256 };
  }
  if (issues.length > 0) throw new SpecError(issues);

  const workers: NonNullable<NonNullable<ClusterSpecInput['nodes']>['workers']> = [];
  if (computes - windowsWorkers > 0)
    workers.push({ name: 'linux-workers', os: 'linux', count: computes - windowsWorkers });
  if (windowsWorkers > 0) {
    const group: (typeof workers)[number] = { name: 'windows-workers', os: 'windows', count: windowsWorkers };
    if (options.windowsVersion !== undefined) group.windowsVersion = options.windowsVersion;
    workers.push(group);
  }
  return {
    name: options.name ?? text,
    kubernetes: options.kubernetesVersion === undefined ? {} : { version: options.kubernetesVersion },
    provider: {
      type: 'libvirt',
      hypervisors,
      ...(Object.keys(images).length > 0 ? { images } : {}),
      ...(options.network === undefined ? {} : { network: { cidr: options.network } }),
    },
    nodes: { controlPlane: { count: controllers as 1 | 3 | 5 }, workers },
  };
}

/**
 * Maps a Kubeinit short form onto a ClusterSpec, validated by the same code as YAML specs.
 * Issues name the short form as their file and the part to change as their path
 * (`controllers`, `--windows-workers`, ...).
 *
 * @throws SpecError with every problem
 */
export function parseShortForm(text: string, options: ShortFormOptions = {}): ClusterSpec {
  return validateSpecInput(shortFormInput(text, options), {
    file: text,
    mapPath: (path) => shortFormPath(path, options),
  });
}
