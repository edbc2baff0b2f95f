#!/bin/sh
# containerd-version.sh TEXT MINIMUMS [KUBERNETES_MINOR SOURCE]
#
# Finds the containerd release (X.Y.Z) in TEXT -- an apt version such as 1.7.24~ds1-6+deb13u1 or
# 1:1.7.28-0ubuntu1, a release version such as 2.3.4, or what `containerd --version` prints
# ("containerd github.com/containerd/containerd/v2 v2.3.4 <commit>") -- and checks it against
# MINIMUMS: one X.Y.Z per release branch, as containerd's RELEASES.md "Kubernetes Support" lists
# them for a Kubernetes minor (playbooks/versions.yaml, containerd-minimum-1.MM). A version meets
# them when its branch is listed and it is at least that branch's minimum, or when its branch is
# newer than every listed one (released after the row was written).
#
# Prints the version. Exit 0: it meets the minimums; 1: it is below them; 2: TEXT holds no version.
# With KUBERNETES_MINOR and SOURCE (where TEXT came from), a failure also prints one line on
# stderr naming both versions.
set -eu

text=${1-}
minimums=${2:?usage: containerd-version.sh TEXT MINIMUMS [KUBERNETES_MINOR SOURCE]}
minor=${3-}
source=${4-}

# Every listed minimum as "2.1.0+, 2.0.0+ or 1.7.20+".
wanted() {
  out=
  last=
  for m in $minimums; do
    [ -z "$last" ] || out="${out:+$out, }$last+"
    last=$m
  done
  if [ -n "$out" ]; then echo "$out or $last+"; else echo "$last+"; fi
}

version=$(printf '%s\n' "$text" | grep -Eo '[0-9]+\.[0-9]+\.[0-9]+' | head -n 1 || true)
if [ -z "$version" ]; then
  [ -z "$source" ] || echo "$source: no containerd version in '$text'" >&2
  exit 2
fi
echo "$version"

# at_least A B: A >= B, comparing X.Y.Z numerically.
at_least() {
  [ "$(printf '%s\n%s\n' "$1" "$2" | sort -t . -k 1,1n -k 2,2n -k 3,3n | head -n 1)" = "$2" ]
}

below() {
  [ -z "$source" ] ||
    echo "$source: containerd $version is below the minimum for Kubernetes $minor, $(wanted) (containerd RELEASES.md, Kubernetes Support)" >&2
  exit 1
}

branch=${version%.*}
for m in $minimums; do
  if [ "${m%.*}" = "$branch" ]; then
    if at_least "$version" "$m"; then exit 0; fi
    below
  fi
done
# No listed branch: only a branch newer than all of them qualifies.
for m in $minimums; do
  at_least "$version" "$m" || below
done
exit 0
