#!/usr/bin/env bash
# Run `kubemix ci` against this machine's lab (as root: the lab creates network namespaces): start
# lab hosts (real sshd Linux hosts with Kubernetes stand-ins, a simulated Windows Server over
# WinRM; fixtures/cluster-lab/README.md), then one `kubemix ci` builds, verifies and tears down a
# mixed cluster (1 controller, 1 Linux worker, 1 Windows worker) and writes its JUnit, HTML
# report and artifacts; then the lab stops. The same lab as `npm run demo`.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat <<'USAGE'
Usage: bash scripts/try-ci.sh [--out DIR]

Starts the lab, runs `kubemix ci` on its spec (report in DIR, default a new /tmp/kmx-try-ci-*/ci),
stops the lab, and exits with kubemix ci's exit code.
USAGE
}
out=''
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  --out) out="${2:?--out needs a directory}" ;;
  '') ;;
  *) usage >&2; exit 2 ;;
esac

kubemix() { node dist/src/cli/main.js "$@"; }
[ -f dist/src/cli/main.js ] || npm run build >/dev/null

# Not under /root: lab hosts get a private /root.
dir="$(mktemp -d /tmp/kmx-try-ci-XXXXXX)"
out="${out:-$dir/ci}"
lab() { node dist/fixtures/cluster-lab/main.js "$@"; }
# shellcheck disable=SC2317  # called by the EXIT trap
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

echo; echo "== kubemix ci $dir/spec.yaml --out $out"
rc=0
kubemix ci "$dir/spec.yaml" --cluster-dir "$dir/cluster" --out "$out" || rc=$?
echo; echo "kubemix ci exited $rc; report: $out/report.html, JUnit: $out/junit.xml"
exit "$rc"
