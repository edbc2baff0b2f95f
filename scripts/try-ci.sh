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

# shellcheck disable=SC1091  # the shared lab start, checked on its own
. scripts/lib/mixed-lab.sh
[ -f dist/bundle/kubemix.js ] || npm run build >/dev/null
# Not under /root: lab hosts get a private /root.
dir="$(mktemp -d /tmp/kmx-try-ci-XXXXXX)"
start_mixed_lab "$dir"
out="${out:-$dir/ci}"

echo; echo "== kubemix ci $dir/spec.yaml --out $out"
rc=0
kubemix ci "$dir/spec.yaml" --cluster-dir "$dir/cluster" --out "$out" || rc=$?
echo; echo "kubemix ci exited $rc; report: $out/report.html, JUnit: $out/junit.xml"
exit "$rc"
