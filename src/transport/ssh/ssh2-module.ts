import { createRequire } from 'node:module';
import type * as Ssh2 from 'ssh2';

let loaded: typeof Ssh2 | undefined;

/**
 * The ssh2 package, loaded on first use rather than when the SSH transport's modules are
 * imported: ssh2 and its dependencies are some 40 CommonJS files, and the commands that connect
 * to nothing (`plan`, `status`, `versions`) import the transport with the executor without ever
 * opening a connection (#25's start-up). ssh2 is CommonJS, so require gives its whole export
 * (`utils` included, which plain ESM import cannot name).
 */
export function ssh2(): typeof Ssh2 {
  loaded ??= createRequire(import.meta.url)('ssh2') as typeof Ssh2;
  return loaded;
}
