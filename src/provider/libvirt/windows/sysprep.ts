/**
 * sysprep.exe's command line, checked against its documented syntax (Microsoft Learn, "Sysprep
 * Command-Line Options",
 * https://learn.microsoft.com/en-us/windows-hardware/manufacture/desktop/sysprep-command-line-options):
 *
 *   Sysprep.exe [/oobe | /audit] [/generalize] [/reboot | /shutdown | /quit] [/quiet]
 *               [/unattend:answerfile] [/mode:vm]
 *
 * `/mode:vm` is valid only together with `/generalize` and `/oobe` (same page). kubemix does not
 * use it: the golden volume is reused on the same hypervisor type, but the page limits /mode:vm
 * to the same VM's hardware profile, and kubemix's guests may differ in vCPUs and memory.
 */

/** The options sysprep documents, and which of them exclude each other. */
const EXCLUSIVE_GROUPS: readonly (readonly string[])[] = [
  ['/oobe', '/audit'],
  ['/reboot', '/shutdown', '/quit'],
];
const FLAGS = new Set([
  '/oobe',
  '/audit',
  '/generalize',
  '/reboot',
  '/shutdown',
  '/quit',
  '/quiet',
  '/mode:vm',
]);
const UNATTEND = '/unattend:';

/**
 * What is wrong with a sysprep argument list, per the documented syntax: unknown options,
 * options given twice, mutually exclusive ones together, `/mode:vm` without `/generalize /oobe`.
 * Empty when the list is valid. Options are compared case-insensitively, as sysprep does.
 */
export function sysprepArgumentProblems(args: readonly string[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const arg of args) {
    const lower = arg.toLowerCase();
    const option = lower.startsWith(UNATTEND) ? UNATTEND : lower;
    if (option === UNATTEND && arg.length === UNATTEND.length) problems.push(`${arg}: no answer file`);
    else if (option !== UNATTEND && !FLAGS.has(option)) problems.push(`${arg}: not a sysprep option`);
    if (seen.has(option)) problems.push(`${arg}: given twice`);
    seen.add(option);
  }
  for (const group of EXCLUSIVE_GROUPS) {
    const given = group.filter((o) => seen.has(o));
    if (given.length > 1) problems.push(`${given.join(' and ')} exclude each other`);
  }
  if (seen.has('/mode:vm') && !(seen.has('/generalize') && seen.has('/oobe')))
    problems.push('/mode:vm needs /generalize and /oobe');
  return problems;
}

/**
 * The arguments kubemix runs sysprep with on the first Windows guest: generalize (new SID and
 * computer-specific state removed at the next boot), boot into OOBE next (where the overlays'
 * specialize and oobeSystem answer files apply), shut down when done (the provider waits for the
 * domain to be shut off before it copies the disk), no UI, and the generalize answer file.
 */
export function sysprepArguments(unattendPath: string): string[] {
  return ['/generalize', '/oobe', '/shutdown', '/quiet', `${UNATTEND}${unattendPath}`];
}
