#!/usr/bin/env bash
# Usage: scripts/flannel-manifest.sh [TAG...]
# Puts upstream flannel's Documentation/kube-flannel.yml of each release tag given (default: the tag
# of the `flannel:` image in playbooks/versions.yaml) where the manifest structure test reads it
# (test/manifests/flannel-upstream.test.ts):
#   <cache>/<tag>/kube-flannel.yml   the file as the tag's tree holds it
#   <cache>/<tag>/origin.json        the module proxy's Origin for the tag (commit hash and ref)
# <cache> is $KUBEMIX_FLANNEL_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/kubemix/flannel
# (test/helpers/flannel-upstream.ts reads the same). The tree is the Go module
# github.com/flannel-io/flannel@<tag> from the Go module proxy only (GOPROXY without `direct`, so
# never GitHub), checked by the Go checksum database; a version that is not a release tag
# (refs/tags/<tag>) is refused. Tags already fetched are kept.
set -euo pipefail
cd "$(dirname "$0")/.."

cache="${KUBEMIX_FLANNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubemix/flannel}"
go_bin="$(command -v go || echo /usr/local/go/bin/go)"

tags=("$@")
if [ "${#tags[@]}" -eq 0 ]; then
  # flannel: "ghcr.io/flannel-io/flannel:v0.28.9" -> v0.28.9
  tags=("$(sed -n 's/^flannel: *"\{0,1\}[^"]*:\(v[0-9][0-9.]*\)"\{0,1\} *$/\1/p' playbooks/versions.yaml)")
fi

for tag in "${tags[@]}"; do
  case "$tag" in
    v[0-9]*.[0-9]*.[0-9]*) ;;
    *) echo "flannel-manifest: not a flannel release tag (vX.Y.Z): '$tag'" >&2; exit 2 ;;
  esac
  out="$cache/$tag"
  if [ -s "$out/kube-flannel.yml" ] && [ -s "$out/origin.json" ]; then continue; fi
  echo "flannel-manifest: Documentation/kube-flannel.yml of flannel $tag (Go module github.com/flannel-io/flannel)"
  mkdir -p "$cache"
  # Outside any module, so `go mod download` fetches (and verifies) this one module only. It
  # reports a failure as JSON with an Error field (and a non-zero exit), read below.
  json="$(
    cd "$cache"
    GOPROXY=https://proxy.golang.org GOFLAGS=-modcacherw \
      "$go_bin" mod download -json "github.com/flannel-io/flannel@$tag" || true
  )"
  dir="$(printf '%s' "$json" | node -e '
    let s = "";
    process.stdin.on("data", (d) => (s += d)).on("end", () => {
      const m = JSON.parse(s);
      if (m.Error) { console.error(m.Error); process.exit(1); }
      const ref = m.Origin && m.Origin.Ref;
      if (ref !== "refs/tags/" + process.argv[1]) {
        console.error("flannel-manifest: " + process.argv[1] + " is not a release tag on the module proxy (Origin ref: " + ref + ")");
        process.exit(1);
      }
      console.log(m.Dir);
    });' "$tag")"
  mkdir -p "$out"
  cp "$dir/Documentation/kube-flannel.yml" "$out/kube-flannel.yml.partial"
  printf '%s' "$json" | node -e '
    let s = "";
    process.stdin.on("data", (d) => (s += d)).on("end", () => {
      const { Path, Version, Sum, Origin } = JSON.parse(s);
      console.log(JSON.stringify({ Path, Version, Sum, Origin }, null, 2));
    });' >"$out/origin.json.partial"
  mv "$out/kube-flannel.yml.partial" "$out/kube-flannel.yml"
  mv "$out/origin.json.partial" "$out/origin.json"
done
echo "flannel-manifest: ${tags[*]} in $cache"
