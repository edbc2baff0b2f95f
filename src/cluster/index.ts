/**
 * A cluster as `up`, `down` and `plan` see it: the spec loaded, its versions decided, the plans
 * built and the cluster directory chosen. The composition root of the library: the one folder
 * that joins spec, versions, providers, playbooks and plans.
 */

export { type ClusterContext, type ClusterContextOptions, loadClusterContext } from './context.js';
export { refuseUnusableCredentials, unusableCredentialWarnings } from './credentials.js';
export { knownSecretValues } from './known-secrets.js';
export { adminConfPath, defaultClusterDir, teardownDir } from './paths.js';
export { withRecordedHosts } from './recorded-hosts.js';
export { type ClusterRunOptions, runClusterPlan } from './run-plan.js';
