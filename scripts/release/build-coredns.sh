#!/usr/bin/env bash
# Builds CoreDNS from the Go module proxy (never GitHub) and prints the directory holding
# `coredns`. Cached: a directory whose coredns already reports the version is kept.
#
#   scripts/release/build-coredns.sh VERSION [OUTDIR]   (VERSION like 1.14.6 or v1.14.6; default
#                                                       OUTDIR ~/.cache/kubemix/release/coredns-vVERSION)
#
# CoreDNS's own main (coredns.go at the module root, v1.14.6) imports core/plugin, which registers
# every plugin of its plugin.cfg, and calls coremain.Run; the version is coremain's CoreVersion
# constant at the tag (coremain/version.go line 5), so it needs no -X flags. A program here does the same two things in a module that requires the release, since
# `go install` refuses a main module with replace directives.
set -euo pipefail

version=${1:?usage: build-coredns.sh VERSION [OUTDIR]}
version=${version#v}
out=$(realpath -m "${2:-${XDG_CACHE_HOME:-$HOME/.cache}/kubemix/release/coredns-v$version}")
# shellcheck source=scripts/release/go-main.sh
source "$(dirname "$0")/go-main.sh"

built() { prints_line "$out/coredns" "CoreDNS-$version" -version; }
if ! built; then
  go_main_build coredns "github.com/coredns/coredns@v$version" "$out" <<'GO'
// CoreDNS with the plugins of its release, as its own main starts it.
package main

import (
	_ "github.com/coredns/coredns/core/plugin"
	"github.com/coredns/coredns/coremain"
)

func main() { coremain.Run() }
GO
  built || { echo "build-coredns: $out/coredns does not report $version" >&2; exit 1; }
fi
echo "$out"
