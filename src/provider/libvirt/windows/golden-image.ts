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
 * write the generalize answer file, and start sysprep with {@link sysprepArguments} (checked
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
