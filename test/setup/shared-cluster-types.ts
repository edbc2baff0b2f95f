/**
 * What the e2e tier's shared lab cluster (test/setup/shared-cluster.ts) hands to the test files
 * that only read it: plain data, as vitest `provide` passes it to each file's worker.
 */

/** The test files that read the shared cluster; the cluster is built only when one of them runs. */
export const SHARED_CLUSTER_READERS = [
  'test/e2e/cluster-lifecycle.integration.test.ts',
  'test/e2e/mixed-cluster.integration.test.ts',
  'test/e2e/secrets-at-rest.integration.test.ts',
];

/** A result of the built CLI, as the file that ran it would have seen it. */
export interface CliResult {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
}

/**
 * One mixed cluster, 3 controllers (lab-01..03, endpoint lab-01:6443) + 1 Linux worker (lab-04) +
 * 1 Windows worker over WinRM (win-01), built by `kubemix up` run with umask 000 into
 * `<root>/home/clusters/<name>` (two parents kubemix creates itself).
 */
export interface SharedCluster {
  /** The directory holding the lab (`lab/`) and the cluster's parents (`home/`). */
  root: string;
  name: string;
  specPath: string;
  clusterDir: string;
  /** The lab's cluster state (fixtures/lab/cluster-state.ts: `ClusterState.open(stateDir)`). */
  stateDir: string;
  privateKeyPath: string;
  passwordEnv: string;
  /** The Windows hosts' password: a secret the readers look for where it must not be. */
  password: string;
  linuxHosts: { name: string; address: string }[];
  windowsHosts: { name: string; address: string }[];
  /** The `kubemix up` that built it. */
  up: CliResult;
  /**
   * `C:\etc\kubernetes\kubelet.conf` of each Windows host, read from the simulated host right
   * after `up` (the simulator lives in the process that runs the setup, not in the test's).
   */
  windowsKubeletConf: Record<string, string | null>;
}

/**
 * The longest the build may take (an e2e test's own longest time: injection's tests allow 600 s);
 * a build that takes longer is stopped, as Ctrl-C stops it, and the readers fail on its output.
 */
export const SHARED_CLUSTER_BUILD_LIMIT_MS = 600_000;

/** Where a reader asks for the cluster: test/setup/shared-cluster.ts answers once it is built. */
export interface SharedClusterSocket {
  socket: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** Undefined when no reader is in the run (the cluster is not built). */
    sharedCluster: SharedClusterSocket | undefined;
  }
}
