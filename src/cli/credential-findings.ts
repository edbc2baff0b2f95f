import {
  credentialProblemLine,
  requireUsableCredentials,
  unusableCredentials,
} from '../plan/credential-check.js';
import { localCredentialLookup } from '../transport/ssh/index.js';
import type { InventoryHost } from '../types/inventory.js';
import { err } from './output.js';

/**
 * up, ci, verify and down: credentials the user wrote that cannot be used here (an unset
 * variable, a missing key file) are bad input, refused before anything is locked or created.
 *
 * @throws SecretRefError (exit 2), one line per problem
 */
export function refuseUnusableCredentials(hosts: InventoryHost[]): void {
  requireUsableCredentials(hosts, localCredentialLookup);
}

/**
 * plan: the same findings as warnings (the plan may be made on another machine than the one
 * that builds).
 */
export function warnUnusableCredentials(hosts: InventoryHost[]): void {
  for (const problem of unusableCredentials(hosts, localCredentialLookup))
    err(`kubemix: warning: ${credentialProblemLine(problem)}`);
}
