#!/usr/bin/env bash
# The main job, on this machine's lab: start lab hosts (real sshd Linux hosts with Kubernetes
# stand-ins, simulated Windows Server hosts over WinRM — see test/README.md "What is real and
# what is a stand-in"), then build a mixed cluster with one `kubemix up` (1 controller, 1 Linux worker,
# 1 Windows worker), verify it, tear it down, and stop the lab.
set -euo pipefail
cd "$(dirname "$0")/.."
kubemix() { node dist/src/cli/main.js "$@"; }

# Not under /root: lab hosts get a private /root.
dir="$(mktemp -d /tmp/kmx-demo-XXXXXX)"
lab() { node dist/fixtures/cluster-lab/main.js "$@"; }
stop_lab() { lab stop "$dir" >/dev/null 2>&1 || true; }
trap stop_lab EXIT

echo "== starting the lab in $dir"
lab start "$dir" --controllers 1 --linux-workers 1 --windows-workers 1 > "$dir/lab.log" 2>&1 &
for _ in $(seq 1 120); do
  [ -f "$dir/spec.yaml" ] && [ -f "$dir/lab.env" ] && break
  if ! kill -0 $! 2>/dev/null; then cat "$dir/lab.log"; exit 1; fi
  sleep 0.5
done
[ -f "$dir/spec.yaml" ] || { echo "the lab did not start:"; cat "$dir/lab.log"; exit 1; }
# The Windows hosts' password, by the environment variable the spec references.
set -a
# shellcheck disable=SC1091
. "$dir/lab.env"
set +a
cat "$dir/lab.log"

echo
echo "== kubemix plan $dir/spec.yaml"
kubemix plan "$dir/spec.yaml" --cluster-dir "$dir/cluster"

echo
echo "== kubemix up $dir/spec.yaml"
kubemix up "$dir/spec.yaml" --cluster-dir "$dir/cluster"

echo
echo "== kubemix verify $dir/spec.yaml"
kubemix verify "$dir/spec.yaml" --cluster-dir "$dir/cluster"

echo
echo "== kubemix status $dir/spec.yaml"
kubemix status "$dir/spec.yaml" --cluster-dir "$dir/cluster"

echo
echo "== kubemix down $dir/spec.yaml"
kubemix down "$dir/spec.yaml" --cluster-dir "$dir/cluster"

echo
echo "demo done: state and event logs are in $dir/cluster (rm -rf $dir when you are done with them)"
