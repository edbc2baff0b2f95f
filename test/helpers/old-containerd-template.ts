/**
 * playbooks/templates/linux/containerd-config.toml.j2 as it was before commit 941b47b (`git show
 * 941b47b^:playbooks/templates/linux/containerd-config.toml.j2`): containerd configuration version 2
 * and a fixed sandbox image, pause:3.10. The tests that show what the old template broke use it.
 */
export const OLD_CONTAINERD_TEMPLATE = `version = 2

[grpc]
  address = "/run/containerd/containerd.sock"

[plugins]
  [plugins."io.containerd.grpc.v1.cri"]
    sandbox_image = "{{ containerd_sandbox_image | default('registry.k8s.io/pause:3.10') }}"

    [plugins."io.containerd.grpc.v1.cri".cni]
      bin_dir = "/opt/cni/bin"
      conf_dir = "/etc/cni/net.d"

    [plugins."io.containerd.grpc.v1.cri".containerd]
      default_runtime_name = "runc"
      snapshotter = "overlayfs"

      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
        runtime_type = "io.containerd.runc.v2"

        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
          SystemdCgroup = true
`;
