/**
 * Windows guests on libvirt: pure functions from a typed guest description to the files, XML
 * and command lines the libvirt provider uses (see README, "Windows guests on libvirt").
 */
export { autounattendXml, SETUP_LANGUAGE } from './autounattend.js';
export { computerNames, isValidComputerName, windowsComputerName } from './computer-name.js';
export {
  CONFIG_ISO_LABEL,
  type ConfigIsoFile,
  installConfigFiles,
  specializeConfigFiles,
  stagedPath,
} from './config-iso.js';
export {
  FIRST_LOGON_DONE_MARKER,
  FIRST_LOGON_FAILED_MARKER,
  firstLogonCommandLine,
  firstLogonScript,
  NODE_FIREWALL_RULES,
} from './first-logon-script.js';
export { generalizeScript, generalizeUnattendXml, specializeUnattendXml } from './golden-image.js';
export {
  defaultWindowsImage,
  WINDOWS_ADMIN_USER,
  type WindowsConfig,
  type WindowsDeviceModel,
  type WindowsGuest,
  type WindowsImageSelector,
  type WindowsVersion,
} from './guest.js';
export { chooseHyperv, type HypervChoice, type HypervFeature, supportedHypervFeatures } from './hyperv.js';
export {
  countRebootEvents,
  DEFAULT_WINDOWS_INSTALL_TIMEOUT_MINUTES,
  type GuestAnswer,
  type InstallObservation,
  type InstallVerdict,
  judgeInstall,
  parseAllocationBytes,
  parseDomState,
} from './install-progress.js';
export { generateAdministratorPassword } from './password.js';
export { virtioDriverPaths } from './virtio-drivers.js';
