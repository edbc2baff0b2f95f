# shellcheck shell=bash
# Sourced by the release builders that build a Go program of a released module in a throwaway
# module of their own (OUTDIR.work), from the Go module proxy only:
#
#   go_release_build NAME MODULE@VERSION OUTDIR PACKAGE
#     builds PACKAGE (a main package of the release, e.g. github.com/flannel-io/flannel) as
#     OUTDIR/NAME; "." builds a main.go read from stdin instead (go_main_build).
#   go_main_build NAME MODULE@VERSION OUTDIR < main.go
#     the same for a program of a few calls into the release (etcd, CoreDNS).
#
# The binary is static and stripped, and renamed into place only once it is whole. A builder may
# set, before the call: GO_BUILD_CGO=1 (a program the release builds with cgo, linked statically as
# its Makefile does), GO_BUILD_LDFLAGS (more -X flags), and define go_build_prepare, which runs in
# the throwaway module before `go get` (to add a replace, say).
go_release_build() {
  local name=$1 require=$2 package=$4 out go ldflags
  out=$(realpath -m "$3")
  go=$(command -v go || echo /usr/local/go/bin/go)
  local tags=()
  ldflags="-s -w ${GO_BUILD_LDFLAGS:-}"
  # With cgo, a static glibc link still loads NSS libraries at run time for names, users and
  # groups; Go's own resolver and user lookup (netgo, osusergo) leave nothing to load.
  if [ "${GO_BUILD_CGO:-0}" = 1 ]; then
    ldflags+=' -extldflags "-static"'
    tags=(-tags "netgo,osusergo")
  fi
  mkdir -p "$out.work" "$out"
  (
    cd "$out.work" || exit 1
    export GOFLAGS=-mod=mod GOTOOLCHAIN=local CGO_ENABLED=${GO_BUILD_CGO:-0}
    rm -f go.mod go.sum
    "$go" mod init "kubemix.test/$name" >/dev/null 2>&1
    if [ "$package" = . ]; then cat >main.go; fi
    if declare -F go_build_prepare >/dev/null; then go_build_prepare; fi
    "$go" get "$require"
    echo "build-$name: $require" >&2
    "$go" build -trimpath "${tags[@]}" -ldflags "$ldflags" -o "$out/$name.partial" "$package"
  )
  mv "$out/$name.partial" "$out/$name"
}

go_main_build() { go_release_build "$1" "$2" "$3" .; }

# prints_line FILE LINE ARGS...: whether FILE runs and prints LINE as one whole line of its output.
# The output is read whole, not piped into grep -q: grep -q exits at the first match and the program,
# still writing, dies of SIGPIPE, which pipefail reports as a failed check (seen in CI for etcd).
prints_line() {
  local file=$1 line=$2
  shift 2
  [ -x "$file" ] && [[ $'\n'"$("$file" "$@" 2>&1)"$'\n' == *$'\n'"$line"$'\n'* ]]
}
