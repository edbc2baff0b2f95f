#!/usr/bin/env bash
# The main job, on this machine's lab: start lab hosts (real sshd Linux hosts with Kubernetes
# stand-ins, simulated Windows Server hosts over WinRM — see test/README.md "What is real and
# what is a stand-in"), then build a mixed cluster with one `kubemix up` (1 controller, 1 Linux worker,
# 1 Windows worker), verify it, tear it down, and stop the lab.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck disable=SC1091  # the shared lab start, checked on its own
. scripts/lib/mixed-lab.sh
# Not under /root: lab hosts get a private /root.
dir="$(mktemp -d /tmp/kmx-demo-XXXXXX)"
start_mixed_lab "$dir"
cat "$dir/lab.log"

echo
echo "== kubemix plan $dir/spec.yaml"
kubemix plan "$dir/spec.yaml" --cluster-dir "$dir/cluster"

for command in up verify status down; do
  echo
  echo "== kubemix $command $dir/spec.yaml"
  kubemix "$command" "$dir/spec.yaml" --cluster-dir "$dir/cluster"
done

echo
echo "demo done: state and event logs are in $dir/cluster (rm -rf $dir when you are done with them)"
