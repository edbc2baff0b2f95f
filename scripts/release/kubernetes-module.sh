# shellcheck shell=bash
# Sourced by the builders of programs in the k8s.io/kubernetes module (build-kubernetes.sh,
# build-agnhost.sh): kubernetes_module VERSION DIR makes DIR a Go module that requires
# k8s.io/kubernetes at VERSION and can build its packages, and changes into it.
#
# How (RESEARCH.md, "Real Kubernetes built here from the registries"): k8s.io/kubernetes's own go.mod
# points its staging modules (k8s.io/api, client-go, ...) at ./staging, which a module consumer
# does not have; each is published on its own as v0.<minor>.<patch>, so a consumer module requires
# k8s.io/kubernetes and replaces every staging module it lists by that version.
kubernetes_module() {
  local version=$1 dir=$2 go upstream_mod module
  go=$(command -v go || echo /usr/local/go/bin/go)
  mkdir -p "$dir"
  cd "$dir" || return 1
  # GOFLAGS=-mod=mod lets go get and go build record what they resolve in this module's go.mod/go.sum.
  export GOFLAGS=-mod=mod GOTOOLCHAIN=local CGO_ENABLED=0
  rm -f go.mod go.sum
  "$go" mod init kubemix.test/kubernetes-release >/dev/null 2>&1
  upstream_mod=$("$go" mod download -json "k8s.io/kubernetes@v$version" | sed -n 's/^\s*"GoMod": "\(.*\)",\{0,1\}$/\1/p')
  [ -f "$upstream_mod" ] || { echo "k8s.io/kubernetes@v$version has no go.mod on the proxy" >&2; return 1; }
  # Only the staging modules the release requires (its require block names them at v0.0.0): the
  # sample-* modules are replaced but never required, and have no published v0 tags.
  while read -r module; do
    if grep -qE "^\s*$module v0\.0\.0" "$upstream_mod"; then
      "$go" mod edit -replace "$module=$module@v0.${version#*.}"
    fi
  done < <(sed -n 's#^\s*\(k8s\.io/[a-z0-9-]*\) => \./staging/.*#\1#p' "$upstream_mod")
  "$go" mod edit -require "k8s.io/kubernetes@v$version"
}
