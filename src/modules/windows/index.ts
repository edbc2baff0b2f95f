export {
  MODULE_HEADER_PREFIX,
  parseModuleHeader,
  parseResultLine,
  RESULT_MARKER,
  WIN_SKIPPED_MARKER,
} from './script.js';
export { winCommandModule } from './win-command.js';
export { winCopyModule } from './win-copy.js';
export { winFeatureModule } from './win-feature.js';
export { winFileModule } from './win-file.js';
export { winGetUrlModule } from './win-get-url.js';
export { winPathModule } from './win-path.js';
export { winRebootModule } from './win-reboot.js';
export { winServiceModule } from './win-service.js';
export { winShellModule } from './win-shell.js';
export { winTemplateModule } from './win-template.js';
export { winWaitForModule } from './win-wait-for.js';
