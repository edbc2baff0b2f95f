# shellcheck shell=bash
# Sourced by scripts/demo.sh and scripts/try-ci.sh (from the repository root, after `npm run
# build`): the built kubemix, and the mixed lab both run on (1 controller, 1 Linux worker,
# 1 Windows worker; fixtures/cluster-lab/README.md).

kubemix() { node dist/bundle/kubemix.js "$@"; }
lab() { node dist/fixtures/cluster-lab/main.js "$@"; }

# start_mixed_lab DIR: starts the lab in DIR (its output in DIR/lab.log), stops it when the
# calling script exits, waits until the lab has written its spec, and exports the Windows hosts'
# password by the environment variable the spec references.
start_mixed_lab() {
  mixed_lab_dir="$1"
  trap stop_mixed_lab EXIT
  echo "== starting the lab in $mixed_lab_dir"
  lab start "$mixed_lab_dir" --controllers 1 --linux-workers 1 --windows-workers 1 > "$mixed_lab_dir/lab.log" 2>&1 &
  for _ in $(seq 1 120); do
    [ -f "$mixed_lab_dir/spec.yaml" ] && [ -f "$mixed_lab_dir/lab.env" ] && break
    if ! kill -0 $! 2>/dev/null; then cat "$mixed_lab_dir/lab.log"; exit 1; fi
    sleep 0.5
  done
  [ -f "$mixed_lab_dir/spec.yaml" ] || { echo "the lab did not start:"; cat "$mixed_lab_dir/lab.log"; exit 1; }
  set -a
  # shellcheck disable=SC1091
  . "$mixed_lab_dir/lab.env"
  set +a
}

# shellcheck disable=SC2317  # called by the EXIT trap
stop_mixed_lab() { lab stop "$mixed_lab_dir" >/dev/null 2>&1 || true; }
