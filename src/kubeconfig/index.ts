export {
  asKubeconfig,
  clusterKubeconfig,
  type Kubeconfig,
  kubeconfigKey,
  mergeKubeconfig,
  type NamedEntry,
  removeClusterEntries,
} from './merge.js';
export {
  kubeconfigPathForMerge,
  type MergeResult,
  mergeIntoKubeconfig,
  removeFromKubeconfig,
} from './merge-file.js';
export { mergedKubeconfigs, mergeRecordPath, recordMerge } from './merge-record.js';
