import {
  credentialProblemLine,
  requireUsableCredentials,
  unusableCredentials,
} from '../plan/credential-check.js';
import { localCredentialLookup } from '../transport/ssh/secrets.js';
import type { InventoryHost } from '../types/inventory.js';

/**
 * Before up, ci, verify and down: credentials the user wrote that cannot be used on this machine
 * (an unset variable, a missing key file) are bad input, refused before anything is locked or created.
 *
 * @throws SecretRefError (exit 2), one line per problem
 */
export function refuseUnusableCredentials(hosts: InventoryHost[]): void {
  requireUsableCredentials(hosts, localCredentialLookup);
}

/**
 * The same findings as warning lines, one per problem, for `plan` (a plan may be made on
 * another machine than the one that builds).
 */
export function unusableCredentialWarnings(hosts: InventoryHost[]): string[] {
  return unusableCredentials(hosts, localCredentialLookup).map(credentialProblemLine);
}
