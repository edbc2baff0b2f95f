/**
 * kubemix's Linux validation workload (verify): agnhost `netexec`, the server Kubernetes' own
 * network conformance tests run, on every Linux worker, plus one client pod, as the e2e framework
 * lays them out (k8s.io/kubernetes v1.37.2 test/e2e/framework/network/utils.go: createNetProxyPods
 * L898-931 makes one `netexec` endpoint pod per schedulable node, createTestPods L772-796 one test
 * container pod that dials them through netexec's /dial, and "Granular Checks: Pods" in
 * test/e2e/common/network/networking.go L37-88 checks pod-to-pod that way). A cluster without Linux
 * workers runs both on its controllers, tolerating the taint kubeadm gives them.
 *
 * The template (playbooks/templates/manifests/linux-netexec.yaml.j2) and verify.yml read it through
 * the plan var `linux_workload`; the image is `images.agnhost` (the versions entry `agnhost`).
 */

/**
 * netexec's HTTP port: its own default, `--http-port` 8080 (k8s.io/kubernetes v1.37.2
 * test/images/agnhost/netexec/netexec.go L141), passed explicitly.
 */
export const NETEXEC_HTTP_PORT = 8080;

/** netexec's UDP port: its default `--udp-port` 8081 (netexec.go L146); /healthz waits for that server. */
export const NETEXEC_UDP_PORT = 8081;

/**
 * The Service's port. The e2e framework's NodePort Service maps port 80 (ClusterHTTPPort,
 * utils.go L62) to netexec's HTTP port.
 */
export const NETEXEC_SERVICE_PORT = 80;

/**
 * How long a Linux rollout may take: pulling agnhost (an Alpine image of some tens of MB) and
 * starting a Go server. kubemix's allowance, generous on purpose; a rollout that finishes sooner
 * does not wait for it.
 */
export const LINUX_WORKLOAD_ROLLOUT_SECONDS = 300;

/** The Linux workload of a cluster: everything the template and verify.yml need. */
export interface LinuxWorkload {
  /** DaemonSet (one netexec endpoint pod per node it runs on), its pods' `app` label and its NodePort Service. */
  name: string;
  /** Deployment of the one client pod (the e2e test container): pod-to-pod, DNS and outbound run from it. */
  client: string;
  http_port: number;
  udp_port: number;
  service_port: number;
  /** True when the cluster has no Linux worker: the pods run on the controllers and tolerate their taint. */
  on_controllers: boolean;
  rollout_seconds: number;
}

/** The Linux workload of a cluster with `linuxWorkers` Linux workers. */
export function linuxWorkload(linuxWorkers: number): LinuxWorkload {
  return {
    name: 'linux-netexec',
    client: 'linux-netexec-client',
    http_port: NETEXEC_HTTP_PORT,
    udp_port: NETEXEC_UDP_PORT,
    service_port: NETEXEC_SERVICE_PORT,
    on_controllers: linuxWorkers === 0,
    rollout_seconds: LINUX_WORKLOAD_ROLLOUT_SECONDS,
  };
}
