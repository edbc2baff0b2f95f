#!/usr/bin/env bash
# The main job, as far as kubemix goes today: plan a Kubeinit-style mixed cluster, then run the
# built part of `up` (provider preflight, waiting for hosts) on a one-node local cluster, show
# its state, and resume it. The cluster playbooks (prepare-linux onwards) are not built yet.
set -euo pipefail
cd "$(dirname "$0")/.."
kubemix() { node dist/src/cli/main.js "$@"; }
export KUBEMIX_HOME="${KUBEMIX_HOME:-$(mktemp -d)}"

echo "== kubemix plan k8s-libvirt-1-2-1 --windows-workers 1"
kubemix plan k8s-libvirt-1-2-1 --windows-workers 1

echo
echo "== kubemix up fixtures/cli/local-static.yaml --stop-after wait-for-hosts"
kubemix up fixtures/cli/local-static.yaml --stop-after wait-for-hosts

echo
echo "== kubemix status fixtures/cli/local-static.yaml"
kubemix status fixtures/cli/local-static.yaml
echo
echo "(cluster state kept in $KUBEMIX_HOME)"
