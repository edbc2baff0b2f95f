/**
 * The spec's default values and the fixed numbers they must respect. Plain data, so providers
 * and playbook vars can import them without the schemas.
 */

/** Windows kubelet defaults from the Kubernetes Windows guide: keep ~2 GiB for the OS and kubelet. */
export const WINDOWS_KUBELET_DEFAULT_ARGS = [
  '--windows-priorityclass=ABOVE_NORMAL_PRIORITY_CLASS',
  '--system-reserved=memory=1.5Gi',
  '--kube-reserved=memory=0.5Gi',
] as const;

/** Windows overlay networking (HNS) only works with VNI >= 4096 and UDP port 4789 (flannel-io/flannel#1215). */
export const WINDOWS_MIN_VNI = 4096;
export const WINDOWS_VXLAN_PORT = 4789;

/**
 * UDP port of the VXLAN tunnel between libvirt hypervisors unless the spec names one: not 4789,
 * which the guests' flannel uses (see src/provider/libvirt/tunnel.ts).
 */
export const DEFAULT_TUNNEL_PORT = 4790;
/** Time a Windows guest gets for its unattended install and first logon, unless the spec says. */
export const DEFAULT_WINDOWS_INSTALL_TIMEOUT_MINUTES = 45;
/**
 * Time a libvirt guest gets to answer on its SSH or WinRM port once it runs, unless the spec says:
 * cloud images boot in ~30-60 s under emulation (TCG), slower on a busy hypervisor.
 */
export const DEFAULT_LIBVIRT_BOOT_TIMEOUT_MINUTES = 15;

/** Network defaults (kubeadm's service CIDR, flannel's pod CIDR, Kubeinit's guest network). */
export const DEFAULT_POD_CIDR = '10.244.0.0/16';
export const DEFAULT_SERVICE_CIDR = '10.96.0.0/12';
export const DEFAULT_LIBVIRT_CIDR = '10.0.0.0/24';
/**
 * Offset of the first libvirt guest's address in the guest network: offset 1 is the gateway
 * hypervisor's bridge, 2 to 10 the other hypervisors' bridges, guests take 11, 12... in node order
 * (src/provider/libvirt/layout.ts), so at most LIBVIRT_FIRST_GUEST_OFFSET - 1 hypervisors get guests.
 */
export const LIBVIRT_FIRST_GUEST_OFFSET = 11;
/** Windows Server version of windows groups that do not name one. */
export const DEFAULT_WINDOWS_VERSION = '2022';

/** The VPC kubemix creates when the spec names none (kept clear of the default pod and service CIDRs). */
export const DEFAULT_EC2_VPC_CIDR = '10.0.0.0/16';
