import type { SourceScan } from './source-imports.js';

// Which folder of src/ may import which: the architecture of STYLE.md and issue #22, started from
// what the code does today. spec (pure) <- plan (pure) <- engine -> executor -> modules, executor
// -> transport/*; providers create and destroy machines; cli alone prints, uses listr2 and exits.
// An arrow here is "imports". Type-only imports and dynamic import() count like any other.

/** A folder as the layering sees it: a top-level folder of src/, or one transport or provider. */
export type Layer = string;

/** Folders whose sub-folders are layers of their own (transports and providers never import each other). */
const SPLIT = new Set(['transport', 'provider']);

/** The layer of a file given relative to src/ (`index` for src/index.ts, the library's entry). */
export function layerOf(file: string): Layer {
  const parts = file.split('/');
  if (parts.length === 1) return 'index';
  if (SPLIT.has(parts[0]!) && parts.length > 2) return `${parts[0]}/${parts[1]}`;
  return parts[0]!;
}

const LIBRARY_BASE = ['types', 'errors'] as const;

/** The allow-list: for each folder, the other folders it may import. */
export const ALLOWED: Readonly<Record<Layer, readonly Layer[]>> = {
  // Leaves: they depend on nothing (STYLE.md).
  types: [],
  errors: [],
  fs: [],
  quote: [],
  timing: [],
  verify: [],
  versions: ['errors', 'fs'],
  template: [...LIBRARY_BASE, 'quote'],
  manifests: [...LIBRARY_BASE, 'versions', 'fs'],
  kubeconfig: [...LIBRARY_BASE, 'fs'],
  artifacts: [...LIBRARY_BASE, 'manifests', 'template', 'fs'],
  // The pure front: spec in, plan out.
  spec: [...LIBRARY_BASE, 'versions'],
  // plan asks the providers (their registry and contract in provider/) which machines and steps a spec needs.
  plan: [...LIBRARY_BASE, 'spec', 'versions', 'manifests', 'provider'],
  // provider/ is the providers' contract and registry; each provider sees only that contract. A
  // provider is one folder: its plan, its modules (the module contract of modules/, which sits
  // below the providers) and its API or XML code; provider/ adds their modules to the registry.
  provider: [
    ...LIBRARY_BASE,
    'spec',
    'versions',
    'modules',
    'provider/static',
    'provider/libvirt',
    'provider/ec2',
  ],
  'provider/static': [...LIBRARY_BASE, 'provider', 'spec', 'versions', 'quote', 'timing'],
  'provider/libvirt': [...LIBRARY_BASE, 'provider', 'spec', 'versions', 'quote', 'timing', 'modules'],
  'provider/ec2': [...LIBRARY_BASE, 'provider', 'spec', 'versions', 'quote', 'timing', 'modules'],
  // The run: engine sequences (it sees the transport contract, never a transport, and runs each
  // step through the executor it is given: cluster/ passes the playbook one, the only one),
  // executor opens transports and drives modules, modules turn arguments into commands.
  engine: [...LIBRARY_BASE, 'plan', 'executor', 'transport', 'fs', 'timing'],
  executor: [
    ...LIBRARY_BASE,
    'modules',
    'transport',
    'transport/local',
    'transport/ssh',
    'transport/winrm',
    'fs',
    'timing',
  ],
  modules: [...LIBRARY_BASE, 'quote', 'template'],
  // transport/ is the contract every transport implements; transports never import each other.
  transport: [...LIBRARY_BASE],
  'transport/local': [...LIBRARY_BASE, 'transport'],
  // PowerShell exec, put and get, written once for both Windows transports (WinRM, and SSH whose
  // remote shell is PowerShell); no transport itself: it never opens a connection.
  'transport/powershell': [...LIBRARY_BASE, 'transport', 'quote'],
  'transport/ssh': [...LIBRARY_BASE, 'transport', 'transport/powershell', 'quote'],
  'transport/winrm': [...LIBRARY_BASE, 'transport', 'transport/powershell', 'quote'],
  // Ansible-style playbooks run through the engine and the executor like any step.
  playbook: [
    ...LIBRARY_BASE,
    'engine',
    'executor',
    'modules',
    'plan',
    'spec',
    'template',
    'transport',
    'timing',
    'fs',
  ],
  // The composition root of the library: a cluster as up, down and plan see it joins spec,
  // versions, playbooks and plans, and knows a provider's own files (the EC2 key's name, local
  // image digests) and the local credential lookup. Only the CLI and the library's entry import it.
  cluster: [
    ...LIBRARY_BASE,
    'artifacts',
    'engine',
    'plan',
    'playbook',
    'provider',
    'provider/ec2',
    'provider/libvirt',
    'spec',
    'transport/ssh',
    'versions',
  ],
  // The CI report listens to the engine's events; it prints nothing and exits nothing.
  ci: [...LIBRARY_BASE, 'engine', 'plan', 'verify', 'fs', 'quote'],
  // The CLI parses, prints and exits; it reaches machines through the library, never a
  // concrete transport or provider.
  cli: [
    ...LIBRARY_BASE,
    'artifacts',
    'ci',
    'cluster',
    'engine',
    'executor',
    'fs',
    'kubeconfig',
    'manifests',
    'modules',
    'plan',
    'playbook',
    'provider',
    'quote',
    'spec',
    'template',
    'verify',
    'versions',
  ],
  // src/index.ts exports the library: anything but the CLI and the CI report.
  index: [
    ...LIBRARY_BASE,
    'artifacts',
    'cluster',
    'engine',
    'executor',
    'fs',
    'kubeconfig',
    'manifests',
    'modules',
    'plan',
    'playbook',
    'provider',
    'quote',
    'spec',
    'template',
    'transport',
    'transport/local',
    'transport/ssh',
    'transport/winrm',
    'verify',
    'versions',
  ],
};

/** An import the allow-list forbids that exists today; each is work for issue #22. */
export interface KnownException {
  from: string;
  to: string;
  why: string;
}

const CONCRETE_TRANSPORT =
  'reaches into a concrete transport for localhost / credential lookup instead of the executor; ' +
  'issue #22 removes it (one localhost, one home for credential lookup)';

const group = (why: string, edges: [string, string][]): KnownException[] =>
  edges.map(([from, to]) => ({ from, to, why }));

/** KNOWN EXCEPTIONS, file -> file. A new edge fails; so does an exception that no longer exists. */
export const KNOWN_EXCEPTIONS: readonly KnownException[] = [
  // spec is pure and sits below manifests: the Windows release-asset table belongs with the pins.
  {
    from: 'spec/windows-release-rule.ts',
    to: 'manifests/windows-flannel-downloads.ts',
    why: 'spec validates against the Windows release-asset table kept in manifests/; issue #22 removes it (table beside the pins in versions/)',
  },
  ...group(CONCRETE_TRANSPORT, [
    ['playbook/run-playbook.ts', 'transport/ssh/index.ts'],
    ['playbook/step-executor.ts', 'transport/local/index.ts'],
  ]),
];

/** Only the CLI shows progress, prints and sets the exit status. */
const CLI_ONLY_PACKAGES = ['listr2'];

/**
 * Every broken rule in a scan, one line each naming the importing file, the imported file (or
 * the call) and the rule. Known exceptions are left out; one that no longer exists is reported.
 */
export function layeringViolations(
  scan: SourceScan,
  exceptions: readonly KnownException[] = KNOWN_EXCEPTIONS,
): string[] {
  const problems: string[] = [];
  const used = new Set<KnownException>();
  for (const { from, what, line } of scan.unfollowable) {
    problems.push(
      `${from}:${line}: ${what} has no string literal: the layering check cannot follow it (rule: dynamic imports name their module literally)`,
    );
  }
  for (const item of scan.imports) {
    const fromLayer = layerOf(item.from);
    if (item.to === undefined) {
      const pkg = item.specifier.split('/')[0]!;
      if (CLI_ONLY_PACKAGES.includes(pkg) && fromLayer !== 'cli') {
        problems.push(`${item.from} imports ${item.specifier} (rule: only src/cli uses ${pkg})`);
      }
      continue;
    }
    const toLayer = layerOf(item.to);
    if (toLayer === fromLayer) continue;
    const allowed = ALLOWED[fromLayer];
    if (allowed === undefined) {
      problems.push(
        `${item.from} imports ${item.to}: folder ${fromLayer} is not in the allow-list (rule: every folder of src/ says what it may import)`,
      );
      continue;
    }
    if (allowed.includes(toLayer)) continue;
    const exception = exceptions.find((known) => known.from === item.from && known.to === item.to);
    if (exception) {
      used.add(exception);
      continue;
    }
    const how = item.kind === 'dynamic' ? ' (dynamic import)' : '';
    problems.push(
      `${item.from} imports ${item.to}${how} (rule: src/${fromLayer} may import only ${allowed.join(', ') || 'nothing'}; not src/${toLayer})`,
    );
  }
  for (const { from, what, line } of scan.calls) {
    if (layerOf(from) === 'cli') continue;
    const rule = what.startsWith('console.')
      ? 'only src/cli prints'
      : 'only src/cli exits or sets the exit status';
    problems.push(`${from}:${line}: ${what} (rule: ${rule})`);
  }
  for (const exception of exceptions) {
    if (!used.has(exception)) {
      problems.push(
        `known exception ${exception.from} -> ${exception.to} no longer exists: remove it from KNOWN_EXCEPTIONS`,
      );
    }
  }
  return problems;
}
