import type { Node } from 'web-tree-sitter';
import { loadPowerShellParser } from '../../fixtures/lab/state/powershell/parser.js';

/** One place where PowerShell does not parse. Line and column are 1-based. */
export interface PowerShellSyntaxError {
  line: number;
  column: number;
  /** `unexpected "<text>"` for an ERROR node, `missing <token>` for a node the parser had to invent. */
  message: string;
}

/** The one PowerShell parser (the lab's, fixtures/lab/state/powershell/parser.ts). */
const parser = loadPowerShellParser;

function snippet(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > 40 ? `${oneLine.slice(0, 37)}...` : oneLine;
}

function collect(node: Node, errors: PowerShellSyntaxError[]): void {
  const at = { line: node.startPosition.row + 1, column: node.startPosition.column + 1 };
  if (node.isMissing) {
    errors.push({ ...at, message: `missing ${node.type}` });
    return;
  }
  if (node.isError) {
    errors.push({ ...at, message: `unexpected "${snippet(node.text)}"` });
  }
  if (!node.hasError) return;
  for (const child of node.children) if (child) collect(child, errors);
}

/**
 * Parses PowerShell source with tree-sitter-powershell and returns every syntax error
 * (ERROR and MISSING nodes) with its line:column; an empty list means the script parses.
 */
export async function parsePowerShell(source: string): Promise<PowerShellSyntaxError[]> {
  const tree = (await parser()).parse(source);
  if (!tree) throw new Error('tree-sitter returned no tree for the PowerShell source');
  try {
    const errors: PowerShellSyntaxError[] = [];
    if (tree.rootNode.hasError) collect(tree.rootNode, errors);
    return errors;
  } finally {
    tree.delete();
  }
}

/** Formats errors as `where:line:column: message` lines. */
export function formatPowerShellErrors(where: string, errors: readonly PowerShellSyntaxError[]): string {
  return errors.map((e) => `${where}:${e.line}:${e.column}: ${e.message}`).join('\n');
}

/** A PowerShell script found in a Kubernetes object. */
export interface EmbeddedPowerShell {
  /** Where it is, e.g. `ConfigMap kube-system/kube-proxy-windows data.run.ps1`. */
  where: string;
  source: string;
}

interface ContainerLike {
  name?: string;
  command?: unknown[];
  args?: unknown[];
}

function isPowerShell(program: unknown): boolean {
  return typeof program === 'string' && /(^|[\\/])(powershell|pwsh)(\.exe)?$/i.test(program);
}

/**
 * Every PowerShell script in a list of Kubernetes objects: ConfigMap entries ending in
 * `.ps1`, and the `-Command` argument of containers that run powershell.exe or pwsh.
 */
export function embeddedPowerShell(objects: readonly Record<string, unknown>[]): EmbeddedPowerShell[] {
  const found: EmbeddedPowerShell[] = [];
  for (const obj of objects) {
    const metadata = (obj['metadata'] ?? {}) as { name?: string; namespace?: string };
    const id = `${String(obj['kind'])} ${metadata.namespace ? `${metadata.namespace}/` : ''}${metadata.name ?? '?'}`;
    if (obj['kind'] === 'ConfigMap') {
      for (const [key, value] of Object.entries((obj['data'] ?? {}) as Record<string, unknown>)) {
        if (key.toLowerCase().endsWith('.ps1') && typeof value === 'string')
          found.push({ where: `${id} data.${key}`, source: value });
      }
    }
    const podSpec = ((obj['spec'] as { template?: { spec?: unknown } } | undefined)?.template?.spec ??
      (obj['kind'] === 'Pod' ? obj['spec'] : undefined)) as
      | { containers?: ContainerLike[]; initContainers?: ContainerLike[] }
      | undefined;
    for (const container of [...(podSpec?.initContainers ?? []), ...(podSpec?.containers ?? [])]) {
      const argv = [...(container.command ?? []), ...(container.args ?? [])];
      if (!isPowerShell(argv[0])) continue;
      const commandAt = argv.findIndex((a) => typeof a === 'string' && /^-(c|command)$/i.test(a));
      const script = commandAt >= 0 ? argv[commandAt + 1] : undefined;
      if (typeof script === 'string')
        found.push({ where: `${id} container ${container.name ?? '?'} -Command`, source: script });
    }
  }
  return found;
}
