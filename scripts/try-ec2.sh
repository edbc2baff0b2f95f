#!/usr/bin/env bash
# Try kubemix's EC2 provider without an AWS account: start moto (an independent EC2/SSM emulator,
# installed by scripts/setup.sh into .tools/moto) on a free loopback port with dummy credentials,
# then run kubemix up against it with fixtures/specs/valid/ec2-moto.yaml (provider.endpoint set
# here) as far as create-hosts, show status, and tear it all down with kubemix down.
#
# What it shows: the real AWS SDK calls kubemix makes (preflight, VPC, subnet, gateway, route
# table, security group, key pair, RunInstances) and the teardown with its leak check. moto starts
# no machines, so nothing answers SSH: the run stops after create-hosts. The spec has Linux nodes
# only: moto's GetPasswordData does not encrypt a password with the imported key, so a Windows
# node's create-hosts cannot finish against bare moto (the tests' fault proxy models it). Building
# a cluster on "instances" needs the EC2 lab of the tests (test/e2e/ec2-cluster.integration.test.ts).
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat <<'USAGE'
Usage: bash scripts/try-ec2.sh [--dry-run]

Starts moto on 127.0.0.1, runs `kubemix up --stop-after create-hosts`, `kubemix status` and
`kubemix down` against it with fixtures/specs/valid/ec2-moto.yaml, then stops moto.
  --dry-run   only `kubemix plan` the spec (no moto needed)
USAGE
}
dry=0
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  --dry-run) dry=1 ;;
  '') ;;
  *) usage >&2; exit 2 ;;
esac

kubemix() { node dist/bundle/kubemix.js "$@"; }
[ -f dist/bundle/kubemix.js ] || npm run build >/dev/null

dir="$(mktemp -d /tmp/kmx-try-ec2-XXXXXX)"
moto_pid=''
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
  if [ -n "$moto_pid" ]; then kill "$moto_pid" 2>/dev/null || true; wait "$moto_pid" 2>/dev/null || true; fi
}
trap cleanup EXIT

# Dummy credentials and no instance metadata: the SDK never looks for real ones.
export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_REGION=eu-west-1
export AWS_EC2_METADATA_DISABLED=true
unset AWS_PROFILE AWS_SESSION_TOKEN

if [ "$dry" = 1 ]; then
  kubemix plan fixtures/specs/valid/ec2-moto.yaml --cluster-dir "$dir/cluster"
  rm -rf "$dir"
  exit 0
fi

moto=.tools/moto/bin/moto_server
[ -x "$moto" ] || { echo "moto not found at $moto: run bash scripts/setup.sh first" >&2; exit 2; }
port="$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
"$moto" -H 127.0.0.1 -p "$port" > "$dir/moto.log" 2>&1 &
moto_pid=$!
for _ in $(seq 1 100); do
  curl -fs "http://127.0.0.1:$port/moto-api/" >/dev/null 2>&1 && break
  kill -0 "$moto_pid" 2>/dev/null || { cat "$dir/moto.log"; exit 1; }
  sleep 0.3
done
sed "s|^\(  endpoint:\).*|\1 http://127.0.0.1:$port|" fixtures/specs/valid/ec2-moto.yaml > "$dir/spec.yaml"
echo "== moto on http://127.0.0.1:$port; spec $dir/spec.yaml"

echo; echo "== kubemix up --stop-after create-hosts"
up_rc=0
kubemix up "$dir/spec.yaml" --cluster-dir "$dir/cluster" --stop-after create-hosts || up_rc=$?
echo; echo "== kubemix status"
kubemix status "$dir/spec.yaml" --cluster-dir "$dir/cluster" || true
# down runs whatever up did: it removes what the state recorded and checks for leaks.
echo; echo "== kubemix down"
kubemix down "$dir/spec.yaml" --cluster-dir "$dir/cluster"
echo; echo "try-ec2 done: state and event logs are in $dir/cluster (rm -rf $dir when you are done)"
exit "$up_rc"
