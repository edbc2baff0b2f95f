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

# The versions come from fixtures/release/built-release.ts (releasePins), which the tests read too.
read -r kubernetes etcd pause coredns flannel crictl agnhost cni < <(node --input-type=module -e '
  import { releasePins } from "./dist/fixtures/release/built-release.js";
  const p = releasePins();
  console.log(p.kubernetes, p.etcd, p.pause, p.coredns, p.flannel, p.crictl, p.agnhost, p.cniPlugins);
')
step() {
  local started=$SECONDS
  "$@" >/dev/null
  echo "build-release: $(basename "$2") ${*:3}: $((SECONDS - started)) s"
}
# Two lanes at once: a go command alone leaves a core idle through its links and its downloads from
# the proxy, so a second go command fills them. The Kubernetes module's programs stay in one lane,
# in order (agnhost and pause reuse its module graph and compiled packages); the other modules'
# programs make the other. Go's build and module caches are safe to share between go commands.
kubernetes_lane() {
  step bash scripts/release/build-kubernetes.sh "$kubernetes"
  step bash scripts/release/build-agnhost.sh "$kubernetes" "$agnhost"
  step bash scripts/release/build-pause.sh "$kubernetes" "$pause"
}
other_modules_lane() {
  step bash scripts/release/build-coredns.sh "$coredns"
  step bash scripts/release/build-etcd.sh "$etcd"
  step bash scripts/release/build-flannel.sh "$flannel"
  step bash scripts/release/build-cni-plugins.sh "$cni"
  step bash scripts/release/build-crictl.sh "$crictl"
}
started=$SECONDS
kubernetes_lane &
kubernetes_pid=$!
other_modules_lane &
other_pid=$!
status=0
wait "$kubernetes_pid" || status=$?
wait "$other_pid" || status=$?
echo "build-release: all: $((SECONDS - started)) s"
exit "$status"
