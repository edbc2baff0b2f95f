import { psQuote } from '../../../quote/index.js';
import { oobeSettings, shellSetupSpecialize } from './autounattend.js';
import { FIRST_LOGON_DONE_MARKER, GUEST_STATE_DIR } from './first-logon-script.js';
import { sysprepArguments } from './sysprep.js';
import { unattendDocument } from './unattend-xml.js';

// The golden image (opt-in): the first Windows guest, once its first logon is done, is
// generalized with sysprep and shut down; its disk becomes a cached base volume; later Windows
// guests are copy-on-write overlays on it that a small answer file specializes (new computer
// name, new Administrator password). This file builds the documents of that flow; the provider
// runs them (see README, "Windows guests on libvirt").

/**
 * Where Windows Setup caches the answer file it installed with (Microsoft Learn, "Use Answer
 * Files with Sysprep", "Caching Answer Files to the Computer": sysprep would apply the cached
 * file's settings). The generalize script deletes them, one statement each.
 */
export const CACHED_ANSWER_FILES = [
  'C:\\Windows\\Panther\\unattend.xml',
  'C:\\Windows\\Panther\\Unattend\\unattend.xml',
  'C:\\Windows\\Panther\\Unattend\\Autounattend.xml',
] as const;

/**
 * Win32-OpenSSH's host keys (SSHDIR is `__PROGRAMDATA__\\ssh`: PowerShell/openssh-portable,
 * contrib/win32/openssh/config.h.vs). Left in the golden image, every overlay would serve the
 * first guest's keys, so the generalize script deletes them (private and .pub).
 *
 * Nothing has to make new ones: sshd started as a service runs `ssh-keygen -A` before it
 * listens. PowerShell/openssh-portable at a915f06c7845840f000373a919c84cb35c81a16e,
 * contrib/win32/win32compat/wmain_sshd.c: scm_start_service -> prereq_setup ->
 * generate_host_keys ("create host keys if they dont already exist"; only when am_system(), and
 * install-sshd.ps1 registers sshd with New-Service and no -Credential, i.e. as LocalSystem);
 * ssh-keygen.c do_gen_all_hostkeys makes each key whose private file is missing or empty. So
 * each overlay's sshd makes its own keys when it first starts (its first logon starts it, with
 * `connection: ssh`). Not verified on Windows (none here).
 *
 * Types: rsa, ecdsa and ed25519 are what `ssh-keygen -A` makes at that commit; dsa too because
 * Win32-OpenSSH made DSA keys until its OpenSSH 9.1 merge (316ebdca, 2022; upstream 88e376f),
 * later than the OpenSSH that Windows Server 2019 and 2022 ship.
 */
export const OPENSSH_HOST_KEY_FILES = ['dsa', 'ecdsa', 'ed25519', 'rsa'].flatMap((type) => [
  `C:\\ProgramData\\ssh\\ssh_host_${type}_key`,
  `C:\\ProgramData\\ssh\\ssh_host_${type}_key.pub`,
]);

/**
 * The cluster key the first logon authorized for Administrators (first-logon-script.ts). The
 * golden volume is shared by every cluster of the hypervisor, WinRM ones included, so the image
 * must not carry the capturing cluster's key: an overlay's first logon writes its own cluster's.
 */
export const OPENSSH_ADMIN_AUTHORIZED_KEYS = 'C:\\ProgramData\\ssh\\administrators_authorized_keys';

/** OpenSSH Server's service name (Win32-OpenSSH install-sshd.ps1: New-Service -Name sshd). */
const SSHD_SERVICE = 'sshd';

/** Where the generalize answer file is written in the guest before sysprep runs. */
export const GENERALIZE_UNATTEND_PATH = `${GUEST_STATE_DIR}\\generalize.xml`;

/**
 * The answer file sysprep's generalize pass reads: Microsoft-Windows-PnpSysprep (generalize) |
 * PersistAllDeviceInstalls true (keep the installed device drivers — the virtio ones — through
 * generalize) and DoNotCleanUpNonPresentDevices true (Microsoft Learn, unattend reference,
 * Microsoft-Windows-PnpSysprep).
 */
export function generalizeUnattendXml(): string {
  return unattendDocument([
    {
      pass: 'generalize',
      components: [
        {
          name: 'Microsoft-Windows-PnpSysprep',
          settings: { PersistAllDeviceInstalls: true, DoNotCleanUpNonPresentDevices: true },
        },
      ],
    },
  ]);
}

/**
 * The PowerShell kubemix runs in the first Windows guest (over its WinRM or SSH connection) to
 * generalize it: remove the cached install answer files (they would shadow the overlays' own),
 * stop sshd if OpenSSH Server is installed and delete its host keys (see
 * {@link OPENSSH_HOST_KEY_FILES}) and the cluster key it authorized, write the generalize answer file, and start sysprep with {@link sysprepArguments} (checked
 * against Microsoft Learn, "Sysprep Command-Line Options", in sysprep.ts). The guest powers off
 * when sysprep is done: the provider waits for the domain to be shut off, then keeps its disk.
 */
export function generalizeScript(): string {
  return [
    '# kubemix generalize v1',
    "$ErrorActionPreference = 'Stop'",
    ...CACHED_ANSWER_FILES.map(
      (cached) => `Remove-Item -LiteralPath ${psQuote(cached)} -Force -ErrorAction SilentlyContinue`,
    ),
    // Stopped first so it cannot make or serve keys before the power-off. Stopping the service
    // ends only the listener, not running sessions (Win32-OpenSSH issues #8 and #1681, "by
    // design", as upstream): a generalize run over SSH goes on. Back to Manual, the capability's
    // default (Microsoft Learn, "Get started with OpenSSH for Windows", where Automatic is an
    // optional step): the image serves every cluster of the hypervisor, and only a first logon
    // with `connection: ssh` sets sshd Automatic and starts it (then it makes its keys). Test-Path
    // first: a missing key is no error, a key that cannot be deleted is ($ErrorActionPreference 'Stop').
    `if (Get-Service -Name ${psQuote(SSHD_SERVICE)} -ErrorAction SilentlyContinue) { Stop-Service -Name ${psQuote(SSHD_SERVICE)} }`,
    `if (Get-Service -Name ${psQuote(SSHD_SERVICE)} -ErrorAction SilentlyContinue) { Set-Service -Name ${psQuote(SSHD_SERVICE)} -StartupType Manual }`,
    ...[...OPENSSH_HOST_KEY_FILES, OPENSSH_ADMIN_AUTHORIZED_KEYS].map(
      (key) =>
        `if (Test-Path -LiteralPath ${psQuote(key)}) { Remove-Item -LiteralPath ${psQuote(key)} -Force }`,
    ),
    `New-Item -ItemType Directory -Force -Path ${psQuote(GUEST_STATE_DIR)} | Out-Null`,
    `[IO.File]::WriteAllText(${psQuote(GENERALIZE_UNATTEND_PATH)}, ${psQuote(generalizeUnattendXml())}, (New-Object Text.UTF8Encoding $false))`,
    `Remove-Item -LiteralPath ${psQuote(FIRST_LOGON_DONE_MARKER)} -Force -ErrorAction SilentlyContinue`,
    `Start-Process -FilePath "$env:SystemRoot\\System32\\Sysprep\\sysprep.exe" -ArgumentList @(${sysprepArguments(
      GENERALIZE_UNATTEND_PATH,
    )
      .map((a) => psQuote(a))
      .join(', ')})`,
    '',
  ].join('\r\n');
}

/** What a guest made from the golden image is given. */
export interface SpecializeOptions {
  computerName: string;
  administratorPassword: string;
}

/**
 * Autounattend.xml for an overlay on the golden image: specialize (computer name) and
 * oobeSystem (new Administrator password, one autologon that runs the same first-logon script
 * from the overlay's config CD-ROM). No windowsPE pass: nothing is installed.
 */
export function specializeUnattendXml(options: SpecializeOptions): string {
  return unattendDocument([
    { pass: 'specialize', components: [shellSetupSpecialize(options.computerName)] },
    oobeSettings(options.administratorPassword),
  ]);
}
