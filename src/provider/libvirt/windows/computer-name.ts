import { createHash } from 'node:crypto';

/**
 * Windows computer (NetBIOS) names: at most 15 characters; kubemix keeps to the DNS-compatible
 * subset (letters, digits, hyphen), not all digits, no leading or trailing hyphen. Source:
 * Microsoft Learn, "Naming conventions in Active Directory for computers, domains, sites, and
 * OUs" (NetBIOS computer names: maximum 15 characters), and the unattend reference
 * Microsoft-Windows-Shell-Setup | ComputerName ("ComputerName is a string with a maximum length
 * of 15 bytes of content").
 */
export const MAX_COMPUTER_NAME_LENGTH = 15;

const VALID = /^(?!\d+$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,13}[A-Za-z0-9])?$/;

/** True when `name` is a computer name kubemix would write into an answer file. */
export function isValidComputerName(name: string): boolean {
  return VALID.test(name);
}

/**
 * The Windows computer name of a node, derived deterministically from its node name alone (so
 * a resumed run or another kubemix on the same spec derives the same one):
 * - a node name that is already a valid computer name is kept as it is;
 * - a longer one becomes its first 10 characters (trailing hyphens dropped), a hyphen and the
 *   first 4 hex digits of the SHA-256 of the whole node name: `windows-workers-01` ->
 *   `windows-wo-` + 4 hex. The digest keeps names that share a prefix apart;
 *   {@link computerNames} still refuses the rare collision.
 * Kubernetes sees the node name (kubelet runs with --hostname-override), never this name.
 */
export function windowsComputerName(nodeName: string): string {
  if (isValidComputerName(nodeName)) return nodeName;
  const digest = createHash('sha256').update(nodeName).digest('hex').slice(0, 4);
  const cleaned = nodeName.replace(/[^A-Za-z0-9-]/g, '-');
  const prefix = cleaned.slice(0, 10).replace(/^-+|-+$/g, '') || 'win';
  return `${prefix}-${digest}`;
}

/**
 * Computer names for every Windows node of a cluster, by node name.
 *
 * @throws Error when two nodes would get one computer name (Windows requires unique names on a
 * network); the message names both nodes.
 */
export function computerNames(nodeNames: readonly string[]): Map<string, string> {
  const byComputer = new Map<string, string>();
  const result = new Map<string, string>();
  for (const node of nodeNames) {
    const computer = windowsComputerName(node);
    // NetBIOS names compare without case.
    const key = computer.toUpperCase();
    const other = byComputer.get(key);
    if (other !== undefined && other !== node) {
      throw new Error(
        `Windows nodes ${other} and ${node} would both get computer name ${computer}; rename one of their groups`,
      );
    }
    byComputer.set(key, node);
    result.set(node, computer);
  }
  return result;
}
