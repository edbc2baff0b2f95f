export { ManifestError } from './errors.js';
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
  manifestVarsFromPlanVars,
  type WindowsVersion,
} from './vars.js';
