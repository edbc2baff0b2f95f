export { type BuildPlanOptions, buildPlan } from './build-plan.js';
export { type CriticalPath, criticalPath } from './critical-path.js';
export { formatPlan } from './format-plan.js';
export { ancestorsOf, buildGraph, descendantsOf, type TaskGraph, topologicalOrder } from './graph.js';
export { LOCALHOST, plannedHosts } from './hosts.js';
export { kubernetesVersionVars } from './plan-vars.js';
export { type RunTimeValue, runTimeValues } from './run-time-values.js';
export { buildTeardownPlan } from './teardown-plan.js';
