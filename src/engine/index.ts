export { StepDefinitionError } from '../errors/index.js';
export {
  ensurePrivateDir,
  PRIVATE_DIR_MODE,
  PRIVATE_FILE_MODE,
  writePrivateFile,
} from '../fs/private-files.js';
export { forgetBuild, forgetRun } from './forget-run.js';
export type { ClusterLock } from './lock.js';
export { acquireLock, lockPath } from './lock.js';
export { HIDDEN_COMMAND, hiddenResult, NO_LOG_MESSAGE } from './no-log.js';
export { applyProvisionUpdate, assignHost, liveResources } from './provision.js';
export { REDACTED, Redactor } from './redactor.js';
export { DEFAULT_FORKS, runPlan } from './run-plan.js';
export { secretFragments } from './secret-fragments.js';
export { readSecrets, secretsPath } from './secrets-store.js';
export type { Selection, SelectOptions } from './select.js';
export { selectTasks } from './select.js';
export type { ClusterState, LastRunState, TaskState, TornDownState } from './state.js';
export {
  planHash,
  readState,
  recordsLiveBuild,
  STATE_VERSION,
  statePath,
  taskHash,
  writeState,
} from './state.js';
export { StateFileLedger } from './state-ledger.js';
export type {
  RunPlanOptions,
  RunSummary,
  StepExecutor,
  StepFailure,
  StepRequest,
  TaskSkipReason,
  TaskSummary,
} from './types.js';
