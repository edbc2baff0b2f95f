# shellcheck shell=bash
# Sourced by the release builders whose program is a main of a few calls into a released module
# (etcd, CoreDNS): go_main_build NAME MODULE@VERSION OUTDIR < main.go
# builds it in a throwaway module (OUTDIR.work) that requires the release, statically (CGO off), and
# renames the binary into OUTDIR/NAME only once it is whole. Everything comes from the Go module proxy.
go_main_build() {
  local name=$1 require=$2 out go
  out=$(realpath -m "$3")
  go=$(command -v go || echo /usr/local/go/bin/go)
  mkdir -p "$out.work" "$out"
  (
    cd "$out.work" || exit 1
    export GOFLAGS=-mod=mod GOTOOLCHAIN=local CGO_ENABLED=0
    rm -f go.mod go.sum
    "$go" mod init "kubemix.test/$name" >/dev/null 2>&1
    cat >main.go
    "$go" get "$require"
    echo "build-$name: $require" >&2
    "$go" build -trimpath -ldflags "-s -w" -o "$out/$name.partial" .
  )
  mv "$out/$name.partial" "$out/$name"
}
