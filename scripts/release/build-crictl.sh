#!/usr/bin/env bash
# Builds crictl (cri-tools) from the Go module proxy (never GitHub) and prints the directory holding
# it. Cached: a directory whose crictl already reports the version is kept.
#
#   scripts/release/build-crictl.sh VERSION [OUTDIR]   (VERSION like 1.37.0; default
#                                                      OUTDIR ~/.cache/kubemix/release/crictl-vVERSION)
#
# As cri-tools' Makefile builds it at v1.37.0 (lines 28-34 and 119-122: cgo off, -trimpath,
# -X sigs.k8s.io/cri-tools/pkg/version.Version=<tag without the v>).
set -euo pipefail

version=${1:?usage: build-crictl.sh VERSION [OUTDIR]}
version=${version#v}
out=$(realpath -m "${2:-${XDG_CACHE_HOME:-$HOME/.cache}/kubemix/release/crictl-v$version}")
# shellcheck source=scripts/release/go-main.sh
source "$(dirname "$0")/go-main.sh"

built() { prints_line "$out/crictl" "crictl version $version" --version; }
if ! built; then
  GO_BUILD_LDFLAGS="-X sigs.k8s.io/cri-tools/pkg/version.Version=$version" \
    go_release_build crictl "sigs.k8s.io/cri-tools@v$version" "$out" sigs.k8s.io/cri-tools/cmd/crictl
  built || { echo "build-crictl: $out/crictl does not report $version" >&2; exit 1; }
fi
echo "$out"
