#!/usr/bin/env bash
# Builds the CNI plugins a Linux node of a kubemix cluster runs from the Go module proxy (never
# GitHub) and prints the directory holding them: containernetworking/plugins' release (what
# pkgs.k8s.io's kubernetes-cni package puts in /opt/cni/bin) and, beside it, the flannel plugin.
# Cached: a directory whose bridge plugin already reports the version is kept.
#
#   scripts/release/build-cni-plugins.sh VERSION [OUTDIR]   (VERSION like 1.9.1; default
#                                                           OUTDIR ~/.cache/kubemix/release/cni-plugins-vVERSION)
#
# As the release workflow builds them (v1.9.1 .github/workflows/release.yaml lines 24-28:
# build_linux.sh, which builds every plugins/{meta,main,ipam}/* but windows, with cgo off and
# -ldflags '-extldflags -static -X .../pkg/utils/buildversion.BuildVersion=<tag>').
#
# The flannel plugin is not the one flannel's manifest names: github.com/flannel-io/cni-plugin is
# not on the Go module proxy at any version (403). Its source before it moved there is: the
# containernetworking/plugins v0.9.1 tree's plugins/meta/flannel, built the same way, saying v0.9.1.
set -euo pipefail

version=${1:?usage: build-cni-plugins.sh VERSION [OUTDIR]}
version=${version#v}
out=$(realpath -m "${2:-${XDG_CACHE_HOME:-$HOME/.cache}/kubemix/release/cni-plugins-v$version}")
flannel_from=0.9.1
GO=$(command -v go || echo /usr/local/go/bin/go)
# shellcheck source=scripts/release/go-main.sh
source "$(dirname "$0")/go-main.sh"

# A plugin run without CNI_COMMAND prints its build string ("CNI bridge plugin v1.9.1") and stops.
reports() { prints_line "$out/$1" "CNI $1 plugin v$2"; }
built() { reports bridge "$version" && reports host-local "$version" && reports flannel "$flannel_from"; }
if built; then
  echo "$out"
  exit 0
fi
mkdir -p "$out.work" "$out"
release=github.com/containernetworking/plugins
# GOFLAGS=-mod=mod lets go get and go build record what they resolve in the throwaway module.
# shellcheck disable=SC2031 # go_release_build sets its own in its subshell; these are this script's.
export GOFLAGS=-mod=mod GOTOOLCHAIN=local CGO_ENABLED=0
(
  cd "$out.work"
  rm -f go.mod go.sum
  "$GO" mod init kubemix.test/cni-plugins >/dev/null 2>&1
  "$GO" get "$release@v$version"
  dir=$("$GO" list -m -f '{{.Dir}}' "$release")
  packages=()
  for d in "$dir"/plugins/meta/* "$dir"/plugins/main/* "$dir"/plugins/ipam/*; do
    [ -d "$d" ] && [ "$(basename "$d")" != windows ] && packages+=("$release/${d#"$dir"/}")
  done
  echo "build-cni-plugins: $release@v$version (${#packages[@]} plugins)" >&2
  rm -rf "$out.partial" && mkdir -p "$out.partial"
  "$GO" build -trimpath -ldflags "-s -w -extldflags -static -X $release/pkg/utils/buildversion.BuildVersion=v$version" \
    -o "$out.partial/" "${packages[@]}"
)
GO_BUILD_LDFLAGS="-X $release/pkg/utils/buildversion.BuildVersion=v$flannel_from" \
  go_release_build flannel "$release@v$flannel_from" "$out.flannel" "$release/plugins/meta/flannel"
mv "$out.flannel/flannel" "$out.partial/flannel"
rm -rf "$out" "$out.flannel" && mv "$out.partial" "$out"
built || { echo "build-cni-plugins: the plugins in $out do not report v$version (flannel v$flannel_from)" >&2; exit 1; }
echo "$out"
