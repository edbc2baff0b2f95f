/**
 * containerd's minimum for a Kubernetes minor, as containerd's RELEASES.md "Kubernetes Support"
 * lists it (playbooks/versions.yaml containerd-minimum-1.MM: one X.Y.Z per release branch). The
 * plan applies it to the pinned releases (the Linux static release and the Windows containerd);
 * prepare-linux applies the same rule on the node to the distribution's candidate
 * (playbooks/files/linux/containerd-version.sh), and a test runs both on one table.
 */

const RELEASE = /(\d+)\.(\d+)\.(\d+)/;

/** `[x, y, z]` of the first X.Y.Z in a version text (`2.3.4`, `1.7.24~ds1-6+deb13u1`), or undefined. */
function release(text: string): [number, number, number] | undefined {
  const match = RELEASE.exec(text);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

const atLeast = (a: number[], b: number[]) => a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!;

/**
 * Whether a containerd version meets the minimums: its branch is listed and it is at least that
 * branch's minimum, or its branch is newer than every listed one (released after the row was
 * written). Undefined when the text holds no X.Y.Z.
 */
export function meetsContainerdMinimum(version: string, minimums: string): boolean | undefined {
  const v = release(version);
  if (!v) return undefined;
  const listed = minimums
    .split(/\s+/)
    .filter(Boolean)
    .map((m) => release(m)!)
    .filter(Boolean);
  const sameBranch = listed.find((m) => m[0] === v[0] && m[1] === v[1]);
  if (sameBranch) return atLeast(v, sameBranch) >= 0;
  return listed.every((m) => atLeast(v, m) >= 0);
}

/** The minimums as people read them: `2.4.0+ or 2.3.0+` (containerd-version.sh words them alike). */
export function minimumWords(minimums: string): string {
  const words = minimums
    .split(/\s+/)
    .filter(Boolean)
    .map((m) => `${m}+`);
  return words.length > 1 ? `${words.slice(0, -1).join(', ')} or ${words.at(-1)}` : (words[0] ?? '');
}
