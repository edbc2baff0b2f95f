#!/usr/bin/env bash
# Installs what kubemix's lab, tests and demo need on a fresh Debian 12 machine, then builds.
# Debian packages: OpenSSH (the lab's real sshd hosts), iproute2 (network namespaces), sudo
# (become), procps + util-linux (lab process and namespace tools), python3-winrm (an independent
# WinRM client that proves our WinRM test server), openssl (the test server's throwaway TLS certificate).
# libvirt provider tests (real libvirtd and QEMU guests): libvirt-daemon-system + libvirt-clients
# (libvirtd, virtlogd, virsh), qemu-system-x86 + qemu-utils (QEMU, qemu-img), genisoimage (cloud-init
# seed ISOs and Windows config ISOs; isoinfo reads them back in tests), dnsmasq-base (libvirt's DHCP/DNS), iptables (libvirt's NAT rules), curl (image
# downloads); debootstrap, fdisk and e2fsprogs build the small Debian test image
# (scripts/libvirt/build-test-image.sh). Nothing is started here: the tests start libvirtd themselves.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(openssh-server openssh-client iproute2 sudo procps util-linux python3-winrm python3-requests-ntlm openssl
  libvirt-daemon-system libvirt-clients qemu-system-x86 qemu-utils genisoimage dnsmasq-base iptables curl
  debootstrap fdisk e2fsprogs)

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
