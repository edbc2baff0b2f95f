#!/usr/bin/env bash
# Builds etcd's server from the Go module proxy (never GitHub) and prints the directory holding
# `etcd`. Cached: a directory whose etcd already reports the version is kept.
#
#   scripts/release/build-etcd.sh VERSION [OUTDIR]   (VERSION like 3.7.0; default
#                                                    OUTDIR ~/.cache/kubemix/release/etcd-vVERSION)
#
# etcd's main package is its repository root module (go.etcd.io/etcd/v3), which the proxy serves
# only up to v3.6.x (RESEARCH.md); the server module go.etcd.io/etcd/server/v3 is published at every
# release and holds etcdmain, which that main calls with the program's arguments. A program here
# does the same: one call, nothing else. etcd stamps its version in go.etcd.io/etcd/api/v3/version
# (a constant of the api module at the matching tag), so it needs no -X flags.
set -euo pipefail

version=${1:?usage: build-etcd.sh VERSION [OUTDIR]}
version=${version#v}
out=$(realpath -m "${2:-${XDG_CACHE_HOME:-$HOME/.cache}/kubemix/release/etcd-v$version}")
# shellcheck source=scripts/release/go-main.sh
source "$(dirname "$0")/go-main.sh"

built() { prints_line "$out/etcd" "etcd Version: $version" --version; }
if ! built; then
  go_main_build etcd "go.etcd.io/etcd/server/v3@v$version" "$out" <<'GO'
// etcd's server: the program etcd's own main would be, through the server module.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
  built || { echo "build-etcd: $out/etcd does not report $version" >&2; exit 1; }
fi
echo "$out"
