export { loadClusterPlaybooks, playbooksDir } from './cluster-playbooks.js';
export { type ExecuteTaskOptions, executeTask, OMIT, type TaskOutcome } from './execute-task.js';
export { parseExtraVars } from './extra-vars.js';
export { type PatternMatch, resolveHostPattern } from './host-pattern.js';
export {
  effectiveVars,
  expandHostRange,
  groupHosts,
  groupsOfHost,
  loadInventory,
  parseInventory,
  toInventoryHost,
} from './inventory.js';
export { loadPlaybook, parsePlaybook, parseTaskFile } from './parse-playbook.js';
export { planStepFromTask, taskForPlanStep, taskFromPlanStep } from './plan-step.js';
export { emptyStats, exitCodeFor, formatRecap, type HostStats } from './recap.js';
export {
  IMPLICIT_LOCALHOST,
  type PlaybookResult,
  type RunPlaybookOptions,
  runPlaybook,
  type TaskRecord,
} from './run-playbook.js';
export { taskSelected } from './tags.js';
export type * from './types.js';
export { mergeVars, type VarLayer, withVars } from './vars.js';
