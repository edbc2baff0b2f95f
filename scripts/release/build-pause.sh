#!/usr/bin/env bash
# Builds the pause program of a Kubernetes release from its C source in the k8s.io/kubernetes
# module on the Go module proxy, as build/pause/Makefile does (TAG 3.10.2 at v1.37.2, line 20;
# CFLAGS line 49: -Os -Wall -Werror -static -DVERSION=v$(TAG)-$(REV), REV being `git describe`,
# which a module download has no history for: the release's tag stands in). Prints the directory.
#
#   scripts/release/build-pause.sh KUBERNETES_VERSION PAUSE_VERSION [OUTDIR]
set -euo pipefail

kubernetes=${1:?usage: build-pause.sh KUBERNETES_VERSION PAUSE_VERSION [OUTDIR]}
kubernetes=${kubernetes#v}
pause=${2:?usage: build-pause.sh KUBERNETES_VERSION PAUSE_VERSION [OUTDIR]}
out=$(realpath -m "${3:-${XDG_CACHE_HOME:-$HOME/.cache}/kubemix/release/pause-$pause}")
GO=$(command -v go || echo /usr/local/go/bin/go)

# pause -v prints "pause.c <VERSION>" and exits.
built() { [ -x "$out/pause" ] && [ "$("$out/pause" -v 2>&1)" = "pause.c v$pause-v$kubernetes" ]; }
if built; then
  echo "$out"
  exit 0
fi
source_dir=$(GOFLAGS=-mod=mod "$GO" mod download -json "k8s.io/kubernetes@v$kubernetes" | sed -n 's/^\s*"Dir": "\(.*\)",\{0,1\}$/\1/p')
[ -f "$source_dir/build/pause/linux/pause.c" ] || { echo "build-pause: no build/pause/linux/pause.c in k8s.io/kubernetes@v$kubernetes" >&2; exit 1; }
mkdir -p "$out"
gcc -Os -Wall -Werror -static "-DVERSION=v$pause-v$kubernetes" -o "$out/pause.partial" "$source_dir/build/pause/linux/pause.c"
mv "$out/pause.partial" "$out/pause"
built || { echo "build-pause: $out/pause does not report v$pause-v$kubernetes" >&2; exit 1; }
echo "$out"
