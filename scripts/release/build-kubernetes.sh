#!/usr/bin/env bash
# Builds a Kubernetes release's binaries from the Go module proxy (never GitHub) and prints the
# directory holding them: kube-apiserver, kube-controller-manager, kube-scheduler, kube-proxy,
# kubelet, kubeadm, kubectl. Cached: a directory whose kubeadm already reports the version is kept.
#
#   scripts/release/build-kubernetes.sh VERSION [OUTDIR]   (VERSION like 1.37.2;
#                                                          default OUTDIR ~/.cache/kubemix/release/kubernetes-vVERSION)
#
# How: a module that requires k8s.io/kubernetes and its staging modules (kubernetes-module.sh). The
# version must be stamped as a release build stamps it (hack/lib/version.sh at v1.37.2, kube::version::ldflags,
# lines 151-182: -X for k8s.io/client-go/pkg/version and k8s.io/component-base/version): without it
# the binaries say v0.0.0-master and kubeadm picks image tags of no release. gitCommit and
# buildDate are left unset (the Go proxy's zip has no git metadata).
set -euo pipefail

version=${1:?usage: build-kubernetes.sh VERSION [OUTDIR]}
version=${version#v}
out=$(realpath -m "${2:-${XDG_CACHE_HOME:-$HOME/.cache}/kubemix/release/kubernetes-v$version}")
programs=(kube-apiserver kube-controller-manager kube-scheduler kube-proxy kubelet kubeadm kubectl)
GO=$(command -v go || echo /usr/local/go/bin/go)

built() {
  for p in "${programs[@]}"; do [ -x "$out/$p" ] || return 1; done
  [ "$("$out/kubeadm" version -o short 2>/dev/null)" = "v$version" ]
}
if built; then
  echo "$out"
  exit 0
fi

major=${version%%.*}
rest=${version#*.}
minor=${rest%%.*}
mkdir -p "$out"
# shellcheck source=scripts/release/kubernetes-module.sh
source "$(dirname "$0")/kubernetes-module.sh"
kubernetes_module "$version" "$out.work"

ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=v$version -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
done
# One `go build` of all seven, not seven in turn: one go command schedules every compile and link
# across both cores, where seven in turn each ended in a link on mostly one thread. With the second
# lane of build-release.sh, a build from nothing went from 1140 s to 602 s (how much each change
# gave was not measured apart). The programs are written to a directory beside OUTDIR and renamed
# into place once all are whole, so a failed build leaves no half-written binary.
echo "build-kubernetes: v$version ${programs[*]}" >&2
rm -rf "$out.partial"
mkdir -p "$out.partial"
packages=()
for p in "${programs[@]}"; do packages+=("k8s.io/kubernetes/cmd/$p"); done
"$GO" build -trimpath -ldflags "$ldflags" -o "$out.partial/" "${packages[@]}"
for p in "${programs[@]}"; do mv "$out.partial/$p" "$out/$p"; done
rmdir "$out.partial"
built || { echo "build-kubernetes: $out/kubeadm does not report v$version" >&2; exit 1; }
echo "$out"
