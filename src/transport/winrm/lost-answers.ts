import { ConnectionError } from '../../errors/index.js';
import { Action } from './soap.js';

/**
 * What a request whose connection closed before the answer came means, per WS-Management action.
 *
 * Windows (HTTP.sys) and proxies close idle keep-alive connections; a request that meets the
 * close is lost without an answer, and the client cannot tell whether the server acted on it.
 * HTTP leaves the decision to the client (RFC 9110 9.2.2: repeat automatically only requests that
 * are idempotent, or known never to have been applied). pywinrm repeats nothing, and Ansible's
 * winrm plugin ignores failures of the Signal it sends after a command (ansible-core
 * lib/ansible/plugins/connection/winrm.py, `_winrm_exec`'s cleanup, commit c9ac477e). kubemix
 * repeats the requests whose second delivery changes nothing:
 * - Receive reads output (MS-WSMV 3.1.4.14). A Receive the server never got loses nothing when
 *   sent again. (The cmd shell keeps no copy of an answer it sent: robust connections, MS-WSMV
 *   3.1.4.1.39, exist only for custom remote shells. An answer lost after it was sent is output
 *   lost; a connection closed as a request arrives loses the request, not an answer.)
 * - Signal terminate ends a command (3.1.4.13): a second one finds nothing left to end.
 * - Delete removes a shell (3.1.4.3): a second one finds no shell.
 * - Create makes a shell (3.1.4.5): at worst one idle shell more, which the server's idle
 *   timeout removes.
 * Command starts a process and Send delivers input (3.1.4.11, 3.1.4.12): sent twice, a command
 * could run twice or read its input twice, so a lost answer fails the operation and says so.
 */
const REPEATABLE = new Set<string>([Action.Receive, Action.Signal, Action.Delete, Action.Create]);

/** What the caller cannot know when the answer to these was lost. */
const UNKNOWN: Record<string, string> = {
  [Action.Command]: 'it is unknown whether the command ran',
  [Action.Send]: 'it is unknown whether the input arrived',
};

/** Attempts for a repeatable request whose connection keeps closing (each on a new connection). */
export const MAX_ATTEMPTS = 4;

/** True when `action` may be sent again after its connection closed without an answer. */
export function isRepeatable(action: string): boolean {
  return REPEATABLE.has(action);
}

/** A request that was sent but never answered, and must not be sent again. */
export class AnswerLostError extends ConnectionError {}

/** The error for a lost answer to a request that is not repeated. */
export function answerLost(host: string, url: string, action: string, actionName: string, cause: unknown) {
  const unknown = UNKNOWN[action] ?? 'it is unknown whether the server carried it out';
  return new AnswerLostError(
    host,
    `connection to ${url} lost before the ${actionName} was answered: ${unknown} (not sent again)`,
    { cause },
  );
}

/** Errors of a connection that closed (or was reset) without answering. */
export function isDroppedConnection(error: unknown): boolean {
  const err = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = err?.code ?? err?.cause?.code ?? '';
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE';
}
