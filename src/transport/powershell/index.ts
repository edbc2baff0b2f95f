export { decodeClixml, encodeClixmlErrors, isClixml } from './clixml.js';
export { getFile, putFile } from './file-copy.js';
export {
  encodePowerShell,
  type PowerShellInvocation,
  powershellInvocation,
  wrapScript,
} from './powershell.js';
export { execPowerShell, type PowerShellRunner, streamOutput } from './powershell-exec.js';
export {
  outcomeCollector,
  type RunCommand,
  type RunOptions,
  type RunOutcome,
  toResult,
} from './run-types.js';
