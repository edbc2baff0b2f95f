#!/usr/bin/env bash
# What `npm run bench` needs beyond the tests: Debian's ansible-core (the contender) and GNU time
# (peak RSS of whole commands).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh
missing=()
for pkg in ansible-core time; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
