import { firstLogonCommandLine } from './first-logon-script.js';
import { WINDOWS_ADMIN_USER, type WindowsGuest, type WindowsImageSelector } from './guest.js';
import {
  listItem,
  type UnattendComponent,
  type UnattendSettings,
  unattendDocument,
  type XmlNode,
} from './unattend-xml.js';
import { virtioDriverPaths } from './virtio-drivers.js';

// Every setting below is from Microsoft Learn's "Unattended Windows Setup Reference"
// (https://learn.microsoft.com/windows-hardware/customize/desktop/unattend/); each builder names
// the reference pages of its component and the pass the reference allows it in.

/** Language of the evaluation ISOs kubemix is documented for (en-us media). */
export const SETUP_LANGUAGE = 'en-US';

/** MBR system partition size (MB): "Configure BIOS/MBR-based hard drive partitions", 100 MB minimum. */
export const SYSTEM_PARTITION_MB = 100;

/**
 * Microsoft-Windows-International-Core-WinPE (windowsPE): SetupUILanguage/UILanguage,
 * InputLocale, SystemLocale, UILanguage, UserLocale — answers Setup's language page.
 */
function internationalCoreWinPE(): UnattendComponent {
  return {
    name: 'Microsoft-Windows-International-Core-WinPE',
    settings: {
      SetupUILanguage: { UILanguage: SETUP_LANGUAGE },
      InputLocale: SETUP_LANGUAGE,
      SystemLocale: SETUP_LANGUAGE,
      UILanguage: SETUP_LANGUAGE,
      UserLocale: SETUP_LANGUAGE,
    },
  };
}

/**
 * Microsoft-Windows-PnpCustomizationsWinPE (windowsPE): DriverPaths/PathAndCredentials (list
 * items keyed by wcm:keyValue) with Path — drivers Setup loads and copies into the image.
 */
function pnpCustomizationsWinPE(paths: readonly string[]): UnattendComponent {
  return {
    name: 'Microsoft-Windows-PnpCustomizationsWinPE',
    settings: {
      DriverPaths: {
        PathAndCredentials: paths.map((path, i) => listItem({ Path: path }, String(i + 1))),
      },
    },
  };
}

function imageMetaData(image: WindowsImageSelector): XmlNode {
  return 'index' in image
    ? listItem({ Key: '/IMAGE/INDEX', Value: String(image.index) })
    : listItem({ Key: '/IMAGE/NAME', Value: image.name });
}

/**
 * Microsoft-Windows-Setup (windowsPE): DiskConfiguration (Disk: DiskID, WillWipeDisk,
 * CreatePartitions, ModifyPartitions), ImageInstall/OSImage (InstallFrom/MetaData, InstallTo,
 * WillShowUI), UserData (AcceptEula, FullName, Organization, ProductKey/WillShowUI).
 *
 * BIOS/MBR ("Configure BIOS/MBR-based hard drive partitions"): an active NTFS system partition
 * and the Windows partition C: on the rest. MBR, not UEFI/GPT: the guest boots SeaBIOS (no
 * OVMF, no per-domain NVRAM file to create and delete), the eval ISO's BIOS boot sector starts
 * Setup without "Press any key" on a blank disk, and Server 2019, 2022 and 2025 need neither UEFI
 * nor TPM: Microsoft Learn's "Hardware requirements for Windows Server" lists UEFI 2.3.1c with
 * Secure Boot and a TPM as "only required for certain features" (BitLocker), for every version.
 * The evaluation media take no product key; ProductKey/WillShowUI Never keeps the key page away.
 */
function windowsSetup(image: WindowsImageSelector): UnattendComponent {
  return {
    name: 'Microsoft-Windows-Setup',
    settings: {
      DiskConfiguration: {
        Disk: listItem({
          DiskID: 0,
          WillWipeDisk: true,
          CreatePartitions: {
            CreatePartition: [
              listItem({ Order: 1, Type: 'Primary', Size: SYSTEM_PARTITION_MB }),
              listItem({ Order: 2, Type: 'Primary', Extend: true }),
            ],
          },
          ModifyPartitions: {
            ModifyPartition: [
              listItem({ Order: 1, PartitionID: 1, Active: true, Format: 'NTFS', Label: 'System' }),
              listItem({ Order: 2, PartitionID: 2, Format: 'NTFS', Label: 'Windows', Letter: 'C' }),
            ],
          },
        }),
        WillShowUI: 'OnError',
      },
      ImageInstall: {
        OSImage: {
          InstallFrom: { MetaData: imageMetaData(image) },
          InstallTo: { DiskID: 0, PartitionID: 2 },
          InstallToAvailablePartition: false,
          WillShowUI: 'OnError',
        },
      },
      UserData: {
        AcceptEula: true,
        FullName: 'kubemix',
        Organization: 'kubemix',
        ProductKey: { WillShowUI: 'Never' },
      },
    },
  };
}

/**
 * Microsoft-Windows-Shell-Setup (specialize): ComputerName (<= 15 characters) and TimeZone
 * (both valid in specialize).
 */
export function shellSetupSpecialize(computerName: string): UnattendComponent {
  return {
    name: 'Microsoft-Windows-Shell-Setup',
    settings: { ComputerName: computerName, TimeZone: 'UTC' },
  };
}

/** Microsoft-Windows-International-Core (oobeSystem): the locale settings after setup. */
export function internationalCore(): UnattendComponent {
  return {
    name: 'Microsoft-Windows-International-Core',
    settings: {
      InputLocale: SETUP_LANGUAGE,
      SystemLocale: SETUP_LANGUAGE,
      UILanguage: SETUP_LANGUAGE,
      UserLocale: SETUP_LANGUAGE,
    },
  };
}

/**
 * Microsoft-Windows-Shell-Setup (oobeSystem): UserAccounts/AdministratorPassword (Value,
 * PlainText), AutoLogon (Username, Password, Enabled, LogonCount 1: one logon, which runs the
 * FirstLogonCommands), OOBE (HideEULAPage, ProtectYourPC), FirstLogonCommands/SynchronousCommand
 * (Order, CommandLine, Description, RequiresUserInput).
 *
 * The password is written as plain text: `PlainText false` would only base64 it (Windows SIM's
 * "hide sensitive data" is an encoding, not encryption). What protects it is where the file
 * lives: a 0600 config ISO that kubemix deletes once the guest answers (config-iso.ts).
 */
export function shellSetupOobe(password: string): UnattendComponent {
  return {
    name: 'Microsoft-Windows-Shell-Setup',
    settings: {
      UserAccounts: { AdministratorPassword: { Value: password, PlainText: true } },
      AutoLogon: {
        Username: WINDOWS_ADMIN_USER,
        Password: { Value: password, PlainText: true },
        Enabled: true,
        LogonCount: 1,
      },
      OOBE: { HideEULAPage: true, ProtectYourPC: 3 },
      FirstLogonCommands: {
        SynchronousCommand: listItem({
          Order: 1,
          CommandLine: firstLogonCommandLine(),
          Description: 'kubemix first logon: WinRM, firewall, network profile, OpenSSH',
          RequiresUserInput: false,
        }),
      },
    },
  };
}

/** The oobeSystem pass shared by the full install and the golden-image specialize file. */
export function oobeSettings(password: string): UnattendSettings {
  return { pass: 'oobeSystem', components: [shellSetupOobe(password), internationalCore()] };
}

/**
 * Autounattend.xml for a fresh install from the evaluation ISO: windowsPE (language, virtio
 * drivers when the guest uses virtio devices, disk layout, image, EULA), specialize (computer
 * name), oobeSystem (Administrator password, one autologon, first-logon script).
 */
export function autounattendXml(guest: WindowsGuest): string {
  const windowsPE: UnattendComponent[] = [internationalCoreWinPE()];
  if (guest.devices === 'virtio') windowsPE.push(pnpCustomizationsWinPE(virtioDriverPaths(guest.version)));
  windowsPE.push(windowsSetup(guest.image));
  return unattendDocument([
    { pass: 'windowsPE', components: windowsPE },
    { pass: 'specialize', components: [shellSetupSpecialize(guest.computerName)] },
    oobeSettings(guest.administratorPassword),
  ]);
}
