#!/usr/bin/env bash
# Installs what kubemix's lab, tests and demo need on a fresh Debian 12 machine, then builds.
# Debian packages: OpenSSH (the lab's real sshd hosts), iproute2 (network namespaces), sudo
# (become), procps + util-linux (lab process and namespace tools), python3-winrm (an independent
# WinRM client that proves our WinRM test server), openssl (the test server's throwaway TLS certificate).
# Windows guests on libvirt: libvirt-clients (virsh, virt-xml-validate), libvirt-daemon-driver-qemu +
# qemu-system-x86 + qemu-utils (libvirt's embedded QEMU driver starts the Windows domain XML under
# TCG), genisoimage (genisoimage and isoinfo for the config ISO).
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(openssh-server openssh-client iproute2 sudo procps util-linux python3-winrm python3-requests-ntlm openssl)
APT_PACKAGES+=(libvirt-clients libvirt-daemon-driver-qemu qemu-system-x86 qemu-utils genisoimage)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# `npm install` with the committed lock, not `npm ci`: the registry these machines reach has no
# builds of biome's other-platform binaries, so the lock cannot list them and `npm ci` refuses it.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm install --no-audit --no-fund
fi
npm run build --silent
echo "setup: done"
