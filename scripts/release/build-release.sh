#!/usr/bin/env bash
# Builds, from the Go module proxy and never from GitHub or a registry, the real programs of the
# Kubernetes release playbooks/versions.yaml pins: the Kubernetes binaries, etcd, pause and CoreDNS
# at the versions kubeadm asks for (playbooks/artifacts.yaml, kubeadm-images), flannel, the CNI
# plugins, crictl and agnhost. Each builder caches under
# ~/.cache/kubemix/release by version; this prints how long each step took, cached or not.
# Needs `npm run build` first (the pins are read through kubemix's own loaders).
#
#   scripts/release/build-release.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

read -r kubernetes etcd pause coredns flannel crictl agnhost cni < <(node --input-type=module -e '
  import { loadVersions } from "./dist/src/versions/versions.js";
  import { loadArtifactsFile } from "./dist/src/artifacts/index.js";
  const pins = loadVersions();
  const version = pins.kubernetes;
  const images = loadArtifactsFile()["kubeadm-images"][version.split(".").slice(0, 2).join(".")];
  const tag = (image) => image.replace(/^.*:v?/, "");
  // The CNI plugins: the containernetworking/plugins release versions.yaml pins for Windows nodes
  // (pkgs.k8s.io, which a Linux node takes kubernetes-cni from, is not pinned).
  console.log(version, images.etcd.replace(/-\d+$/, ""), images.pause, images.coredns,
    tag(pins.flannel), pins.crictl, tag(pins.agnhost), pins["cni-plugins-windows"]);
')
step() {
  local started=$SECONDS
  "$@" >/dev/null
  echo "build-release: $(basename "$2") ${*:3}: $((SECONDS - started)) s"
}
step bash scripts/release/build-kubernetes.sh "$kubernetes"
step bash scripts/release/build-etcd.sh "$etcd"
step bash scripts/release/build-pause.sh "$kubernetes" "$pause"
step bash scripts/release/build-coredns.sh "$coredns"
step bash scripts/release/build-flannel.sh "$flannel"
step bash scripts/release/build-cni-plugins.sh "$cni"
step bash scripts/release/build-crictl.sh "$crictl"
step bash scripts/release/build-agnhost.sh "$kubernetes" "$agnhost"
