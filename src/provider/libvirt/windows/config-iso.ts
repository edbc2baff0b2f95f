import { posix } from 'node:path';
import { autounattendXml } from './autounattend.js';
import { CONFIG_SCRIPT_DIR, FIRST_LOGON_SCRIPT, firstLogonScript } from './first-logon-script.js';
import { specializeUnattendXml } from './golden-image.js';
import type { WindowsGuest } from './guest.js';

/**
 * The config CD-ROM of a Windows guest. Windows Setup reads `Autounattend.xml` from the root
 * of any CD-ROM (Microsoft Learn, "Windows Setup Automation Overview": implicit answer-file
 * search, removable read-only media); the first-logon script sits beside it.
 *
 * The ISO is built ON THE HYPERVISOR by the ISO tool the Linux guests' seed also uses (iso.ts):
 * no maintained npm package writes ISO 9660 + Joliet images, and building where the file is used
 * avoids copying a password-bearing image across the network.
 *
 * The file holds the Administrator password, so: staged in a 0700 directory with files 0600,
 * the ISO written 0600 (umask 077), the staging directory removed at once, and the ISO itself ejected and
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

/** The config CD-ROM's files for either kind of Windows guest. */
export function windowsConfigFiles(answers: 'install' | 'specialize', guest: WindowsGuest): ConfigIsoFile[] {
  return answers === 'specialize' ? specializeConfigFiles(guest) : installConfigFiles(guest);
}

function firstLogonFile(guest: WindowsGuest): ConfigIsoFile {
  const options = guest.sshAuthorizedKey === undefined ? {} : { sshAuthorizedKey: guest.sshAuthorizedKey };
  return { path: `${CONFIG_SCRIPT_DIR}/${FIRST_LOGON_SCRIPT}`, content: firstLogonScript(options) };
}

/** Staging path of a config file under `stagingDir` on the hypervisor. */
export function stagedPath(stagingDir: string, file: ConfigIsoFile): string {
  return posix.join(stagingDir, file.path);
}
