#!/usr/bin/env bash
# Builds a Kubernetes release's binaries from the Go module proxy (never GitHub) and prints the
# directory holding them: kube-apiserver, kube-controller-manager, kube-scheduler, kube-proxy,
# kubelet, kubeadm, kubectl. Cached: a directory whose kubeadm already reports the version is kept.
#
#   scripts/release/build-kubernetes.sh VERSION [OUTDIR]   (VERSION like 1.37.2;
#                                                          default OUTDIR ~/.cache/kubemix/release/kubernetes-vVERSION)
#
# How (RESEARCH.md, "Real Kubernetes built here from the registries"): k8s.io/kubernetes's own go.mod
# points its staging modules (k8s.io/api, client-go, ...) at ./staging, which a module consumer
# does not have; each is published on its own as v0.<minor>.<patch>, so a consumer module requires
# k8s.io/kubernetes and replaces every staging module it lists by that version. The version must be
# stamped as a release build stamps it (hack/lib/version.sh at v1.37.2, kube::version::ldflags,
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
staging_version=v0.${version#*.}
work="$out.work"
mkdir -p "$work" "$out"
cd "$work"
# GOFLAGS=-mod=mod lets go get and go build record what they resolve in this module's go.mod/go.sum.
export GOFLAGS=-mod=mod GOTOOLCHAIN=local CGO_ENABLED=0
rm -f go.mod go.sum
"$GO" mod init kubemix.test/kubernetes-release >/dev/null 2>&1
upstream_mod=$("$GO" mod download -json "k8s.io/kubernetes@v$version" | sed -n 's/^\s*"GoMod": "\(.*\)",\{0,1\}$/\1/p')
[ -f "$upstream_mod" ] || { echo "build-kubernetes: k8s.io/kubernetes@v$version has no go.mod on the proxy" >&2; exit 1; }
# Only the staging modules the release requires (its require block names them at v0.0.0): the
# sample-* modules are replaced but never required, and have no published v0 tags.
while read -r module; do
  if grep -qE "^\s*$module v0\.0\.0" "$upstream_mod"; then
    "$GO" mod edit -replace "$module=$module@$staging_version"
  fi
done < <(sed -n 's#^\s*\(k8s\.io/[a-z0-9-]*\) => \./staging/.*#\1#p' "$upstream_mod")
"$GO" mod edit -require "k8s.io/kubernetes@v$version"

ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=v$version -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
done
# The first program downloads the module graph; a failed build leaves no half-written binary.
for p in "${programs[@]}"; do
  echo "build-kubernetes: v$version $p" >&2
  "$GO" build -trimpath -ldflags "$ldflags" -o "$out/$p.partial" "k8s.io/kubernetes/cmd/$p"
  mv "$out/$p.partial" "$out/$p"
done
built || { echo "build-kubernetes: $out/kubeadm does not report v$version" >&2; exit 1; }
echo "$out"
