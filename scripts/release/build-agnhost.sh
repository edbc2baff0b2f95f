#!/usr/bin/env bash
# Builds agnhost, the Kubernetes e2e test image's program, from the test/images/agnhost tree of a
# Kubernetes release on the Go module proxy (never GitHub), and prints the directory holding it.
# Cached: a directory whose agnhost already reports the version is kept.
#
#   scripts/release/build-agnhost.sh KUBERNETES_VERSION AGNHOST_VERSION [OUTDIR]
#     (default OUTDIR ~/.cache/kubemix/release/agnhost-AGNHOST_VERSION)
#
# As test/images/agnhost/Makefile and image-util.sh (`bin`, line 234) build it at v1.37.2: cgo off,
# LD_FLAGS -X main.Version=$(cat VERSION). The tree's VERSION must be the version asked for.
set -euo pipefail

kubernetes=${1:?usage: build-agnhost.sh KUBERNETES_VERSION AGNHOST_VERSION [OUTDIR]}
kubernetes=${kubernetes#v}
agnhost=${2:?usage: build-agnhost.sh KUBERNETES_VERSION AGNHOST_VERSION [OUTDIR]}
out=$(realpath -m "${3:-${XDG_CACHE_HOME:-$HOME/.cache}/kubemix/release/agnhost-$agnhost}")
GO=$(command -v go || echo /usr/local/go/bin/go)
# shellcheck source=scripts/release/go-main.sh
source "$(dirname "$0")/go-main.sh"
# shellcheck source=scripts/release/kubernetes-module.sh
source "$(dirname "$0")/kubernetes-module.sh"

# Its cobra root command is named "app" (agnhost.go).
built() { prints_line "$out/agnhost" "app version $agnhost" --version; }
if built; then
  echo "$out"
  exit 0
fi
mkdir -p "$out"
kubernetes_module "$kubernetes" "$out.work"
tree_version=$(cat "$("$GO" list -m -f '{{.Dir}}' k8s.io/kubernetes)/test/images/agnhost/VERSION")
[ "$tree_version" = "$agnhost" ] ||
  { echo "build-agnhost: k8s.io/kubernetes@v$kubernetes holds agnhost $tree_version, not $agnhost" >&2; exit 1; }
echo "build-agnhost: $agnhost (k8s.io/kubernetes@v$kubernetes)" >&2
"$GO" build -trimpath -ldflags "-s -w -X main.Version=$agnhost" -o "$out/agnhost.partial" k8s.io/kubernetes/test/images/agnhost
mv "$out/agnhost.partial" "$out/agnhost"
built || { echo "build-agnhost: $out/agnhost does not report $agnhost" >&2; exit 1; }
echo "$out"
