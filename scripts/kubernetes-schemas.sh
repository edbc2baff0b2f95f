#!/usr/bin/env bash
# Usage: scripts/kubernetes-schemas.sh [--spec-only] [VERSION...]
# Builds the offline Kubernetes schemas that the tests' manifest checks (kubeconform -strict) and
# the lab's API server stand-in (unknown fields, fixtures/lab/state/strict-fields.ts) read, for
# each Kubernetes version given (default: `kubernetes:` of playbooks/versions.yaml):
#   <cache>/v<version>/swagger.json               the OpenAPI v2 spec of that exact release
#                                                 (api/openapi-spec/swagger.json of the
#                                                 k8s.io/kubernetes module, checked by the Go
#                                                 checksum database)
#   <cache>/v<version>-standalone-strict/*.json   JSON schemas with additionalProperties: false,
#                                                 made as yannh/kubernetes-json-schema makes them
#                                                 (build.sh: openapi2jsonschema --expanded
#                                                 --kubernetes --stand-alone --strict), in the
#                                                 layout kubeconform's -schema-location reads
#   <cache>/bin/kubeconform                       github.com/yannh/kubeconform, go install
# <cache> is $KUBEMIX_SCHEMA_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/kubemix/kubernetes-schemas
# (scripts/lab/kubernetes-schemas.ts reads the same). Nothing here downloads from GitHub: the
# module comes from the Go module proxy, the converter from PyPI. Versions already built are kept.
set -euo pipefail
cd "$(dirname "$0")/.."

KUBECONFORM_VERSION=v0.8.0
# openapi2jsonschema 0.9.1 pins PyYAML < 6, which no longer builds on current Pythons; it only
# calls yaml.load(..., Loader=SafeLoader), which PyYAML 6 keeps.
OPENAPI2JSONSCHEMA_PACKAGES=(openapi2jsonschema==0.9.1 'click>=7.0,<8.0' 'colorama>=0.4.1,<0.5.0'
  'jsonref>=0.2.0,<0.3.0' 'pyyaml>=6,<7')

cache="${KUBEMIX_SCHEMA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubemix/kubernetes-schemas}"
go_bin="$(command -v go || echo /usr/local/go/bin/go)"
mkdir -p "$cache/bin"

# --spec-only: the OpenAPI specs alone (what the lab's API server stand-in reads), no JSON schemas.
spec_only=no
if [ "${1:-}" = --spec-only ]; then spec_only=yes; shift; fi
versions=("$@")
if [ "${#versions[@]}" -eq 0 ]; then
  versions=("$(sed -n 's/^kubernetes: *"\{0,1\}\([0-9][0-9.]*\)"\{0,1\} *$/\1/p' playbooks/versions.yaml)")
fi

if [ "$spec_only" = no ] && [ "$(cat "$cache/bin/kubeconform.version" 2>/dev/null)" != "$KUBECONFORM_VERSION" ]; then
  echo "kubernetes-schemas: installing kubeconform $KUBECONFORM_VERSION"
  GOBIN="$cache/bin" "$go_bin" install "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION"
  echo "$KUBECONFORM_VERSION" >"$cache/bin/kubeconform.version"
fi

venv="$cache/openapi2jsonschema-venv"
if [ "$spec_only" = no ] && [ ! -x "$venv/bin/openapi2jsonschema" ]; then
  echo "kubernetes-schemas: installing openapi2jsonschema into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps "${OPENAPI2JSONSCHEMA_PACKAGES[@]}"
fi

for version in "${versions[@]}"; do
  version="${version#v}"
  case "$version" in
    [0-9]*.[0-9]*.[0-9]*) ;;
    *) echo "kubernetes-schemas: not a Kubernetes release: $version" >&2; exit 2 ;;
  esac
  spec="$cache/v$version/swagger.json"
  if [ ! -s "$spec" ]; then
    echo "kubernetes-schemas: OpenAPI spec of Kubernetes v$version (Go module k8s.io/kubernetes)"
    # Outside any module, so `go mod download` only fetches (and verifies) this one.
    dir="$(cd "$cache" && GOFLAGS=-modcacherw "$go_bin" mod download -json "k8s.io/kubernetes@v$version" |
      node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const m=JSON.parse(s);if(m.Error){console.error(m.Error);process.exit(1)}console.log(m.Dir)})')"
    mkdir -p "$cache/v$version"
    cp "$dir/api/openapi-spec/swagger.json" "$spec.partial"
    mv "$spec.partial" "$spec"
  fi
  strict="$cache/v$version-standalone-strict"
  if [ "$spec_only" = no ] && [ ! -s "$strict/pod-v1.json" ]; then
    echo "kubernetes-schemas: strict JSON schemas of Kubernetes v$version"
    build="$cache/.build-v$version"
    rm -rf "$build"
    # The converter reports the CustomResourceDefinition types it cannot expand (the kinds kubemix
    # applies are unaffected), and resolves references against the working directory + a
    # relative output path.
    (cd "$cache" && "$venv/bin/openapi2jsonschema" -o ".build-v$version" --expanded --kubernetes --stand-alone \
      --strict "$spec") >"$build.log" 2>&1 || { cat "$build.log" >&2; exit 1; }
    rm -f "$build.log"
    rm -rf "$strict"
    mv "$build" "$strict"
  fi
done
echo "kubernetes-schemas: ${versions[*]} in $cache"
