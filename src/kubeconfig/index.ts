export {
  asKubeconfig,
  clusterKubeconfig,
  type Kubeconfig,
  kubeconfigKey,
  mergeKubeconfig,
  type NamedEntry,
} from './merge.js';
export { kubeconfigPathForMerge, type MergeResult, mergeIntoKubeconfig } from './merge-file.js';
