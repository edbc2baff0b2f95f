import { posix } from 'node:path';
import { shellQuote } from '../../../template/filters.js';
import { autounattendXml } from './autounattend.js';
import { CONFIG_SCRIPT_DIR, FIRST_LOGON_SCRIPT, firstLogonScript } from './first-logon-script.js';
import { specializeUnattendXml } from './golden-image.js';
import type { WindowsGuest } from './guest.js';

/**
 * The config CD-ROM of a Windows guest. Windows Setup reads `Autounattend.xml` from the root
 * of any CD-ROM (Microsoft Learn, "Windows Setup Automation Overview": implicit answer-file
 * search, removable read-only media); the first-logon script sits beside it.
 *
 * The ISO is built ON THE HYPERVISOR with genisoimage (Debian package genisoimage, the tool the
 * Linux guests' cloud-init seed also needs): no maintained npm package writes ISO 9660 +
 * Joliet images, and building where the file is used avoids copying a password-bearing image
 * across the network. Joliet is required: without it Windows sees only the 8.3 upper-case
 * ISO 9660 name (AUTOUNAT.XML) and Setup finds no answer file.
 *
 * The file holds the Administrator password, so: staged in a 0700 directory with umask 077,
 * the ISO written 0600, the staging directory removed at once, and the ISO itself ejected and
 * deleted as soon as wait-for-hosts has logged in with the password (the guest never reads it
 * again; a deleted file cannot leak). A run that dies before that leaves it 0600 in the
 * cluster's pool, recorded as a resource, and `down` deletes it.
 */

/** Volume label of the config CD-ROM. */
export const CONFIG_ISO_LABEL = 'KUBEMIX';

/** One file of the config CD-ROM, relative to its root (POSIX separators). */
export interface ConfigIsoFile {
  path: string;
  content: string;
}

/** What goes onto the config CD-ROM of a guest installed from the evaluation ISO. */
export function installConfigFiles(guest: WindowsGuest): ConfigIsoFile[] {
  return [{ path: 'Autounattend.xml', content: autounattendXml(guest) }, firstLogonFile(guest)];
}

/** What goes onto the config CD-ROM of an overlay on the golden image. */
export function specializeConfigFiles(guest: WindowsGuest): ConfigIsoFile[] {
  return [
    {
      path: 'Autounattend.xml',
      content: specializeUnattendXml({
        computerName: guest.computerName,
        administratorPassword: guest.administratorPassword,
      }),
    },
    firstLogonFile(guest),
  ];
}

function firstLogonFile(guest: WindowsGuest): ConfigIsoFile {
  const options = guest.sshAuthorizedKey === undefined ? {} : { sshAuthorizedKey: guest.sshAuthorizedKey };
  return { path: `${CONFIG_SCRIPT_DIR}/${FIRST_LOGON_SCRIPT}`, content: firstLogonScript(options) };
}

/**
 * The genisoimage command that makes the ISO from a staging directory holding the files:
 * Joliet (long names) + Rock Ridge, volume label KUBEMIX. genisoimage(1): -output, -volid,
 * -joliet, -joliet-long, -rational-rock, -quiet.
 */
export function genisoimageArgv(stagingDir: string, isoPath: string): string[] {
  return [
    'genisoimage',
    '-quiet',
    '-output',
    isoPath,
    '-volid',
    CONFIG_ISO_LABEL,
    '-joliet',
    '-joliet-long',
    '-rational-rock',
    stagingDir,
  ];
}

/**
 * One POSIX shell script that builds the ISO on the hypervisor from files already staged
 * under `stagingDir` (the transport's `put` wrote them 0600 into a `mktemp -d` directory):
 * umask 077 so the ISO is 0600 from its first byte, chmod to be sure, then the staging
 * directory is removed whatever happened. Every path goes through shellQuote.
 */
export function buildConfigIsoScript(stagingDir: string, isoPath: string): string {
  return [
    'set -eu',
    'umask 077',
    `staging=${shellQuote(stagingDir)}`,
    `trap 'rm -rf -- "$staging"' EXIT`,
    genisoimageArgv(stagingDir, isoPath).map(shellQuote).join(' '),
    `chmod 0600 -- ${shellQuote(isoPath)}`,
  ].join('\n');
}

/** Staging path of a config file under `stagingDir` on the hypervisor. */
export function stagedPath(stagingDir: string, file: ConfigIsoFile): string {
  return posix.join(stagingDir, file.path);
}
