export { ManifestError } from './errors.js';
export {
  LINUX_WORKLOAD_ROLLOUT_SECONDS,
  type LinuxWorkload,
  linuxWorkload,
  NETEXEC_HTTP_PORT,
  NETEXEC_SERVICE_PORT,
  NETEXEC_UDP_PORT,
} from './linux-workload.js';
export { type FlannelNetConf, readFlannelNetConf } from './net-conf.js';
export {
  type KubeObject,
  MANIFEST_NAMES,
  type ManifestName,
  manifestTemplateDir,
  manifestTemplatePath,
  parseManifestObjects,
  renderManifest,
  renderManifestObjects,
  renderTemplateSource,
} from './render.js';
export {
  checkManifestVars,
  type ManifestImages,
  type ManifestVars,
  type ManifestVarsExtra,
  manifestImages,
  manifestVarsFromPlanVars,
} from './vars.js';
export {
  type WindowsFlannelDownload,
  windowsFlannelDownloads,
  windowsReleaseProblems,
} from './windows-flannel-downloads.js';
export {
  checkedDigest,
  type DigestAlgorithm,
  type ReleaseAssets,
  releaseAssets,
  type WindowsReleaseProject,
} from './windows-release-assets.js';
export {
  isWindowsVersion,
  WINDOWS_PROCESS_HANDLER,
  WINDOWS_VERSIONS,
  type WindowsVersion,
  type WindowsWorkload,
  WORKLOAD_PULL_SECONDS,
  WORKLOAD_START_SECONDS,
  windowsWorkload,
  windowsWorkloads,
} from './windows-workloads.js';
