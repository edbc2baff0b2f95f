import type { InventoryHost, SecretRef } from '../types/inventory.js';
import type { PlanStep } from '../types/plan.js';

const shellQuote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

/** A path for the shell: `~/x` becomes `"$HOME"/'x'` so it expands but stays quoted. */
function shellPath(path: string): string {
  return path.startsWith('~/') ? `"$HOME"/${shellQuote(path.slice(2))}` : shellQuote(path);
}

/** A check changes nothing: report it as ok, not changed (Ansible's changed_when: false). */
const CHECK_ONLY = { changedWhen: false } as const;

/** Every secret reference the hosts use, once each. */
export function secretRefs(hosts: InventoryHost[]): SecretRef[] {
  const seen = new Map<string, SecretRef>();
  for (const host of hosts) {
    const credentials = host.credentials;
    if (!credentials) continue;
    for (const ref of [credentials.privateKey, credentials.passphrase, credentials.password]) {
      if (ref) seen.set('env' in ref ? `env:${ref.env}` : `file:${ref.file}`, ref);
    }
  }
  return [...seen.values()];
}

/**
 * Steps run on localhost before any host is touched: every credential reference resolves.
 * Commands only test presence (`printenv` output goes to /dev/null), so no secret is ever shown.
 */
export function credentialPreflightSteps(hosts: InventoryHost[]): PlanStep[] {
  return secretRefs(hosts).map((ref) =>
    'env' in ref
      ? {
          name: `environment variable ${ref.env} is set`,
          module: 'shell',
          args: {
            cmd: `printenv ${shellQuote(ref.env)} >/dev/null || { echo "environment variable ${ref.env} is not set" >&2; exit 1; }`,
          },
        }
      : {
          name: `file ${ref.file} is readable`,
          module: 'shell',
          keywords: CHECK_ONLY,
          args: { cmd: `test -r ${shellPath(ref.file)} || { echo "cannot read ${ref.file}" >&2; exit 1; }` },
        },
  );
}

/**
 * Steps that wait for a host to answer and identify itself. `probe` picks the OS's own command
 * (uname on Linux, PowerShell on Windows), so one step list serves mixed node sets.
 */
export function waitForHostSteps(timeoutSec: number): PlanStep[] {
  return [
    { name: 'wait for connection', module: 'wait_for_connection', args: { timeout: timeoutSec } },
    { name: 'identify host', module: 'probe', args: {} },
  ];
}
