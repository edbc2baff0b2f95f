#!/usr/bin/env bash
# Installs what kubemix's lab, tests and demo need on a fresh Debian 12 machine, then builds.
# Debian packages: OpenSSH (the lab's real sshd hosts), iproute2 (network namespaces), sudo
# (become), procps + util-linux (lab process and namespace tools), python3-winrm (an independent
# WinRM client that proves our WinRM test server), openssl (the test server's throwaway TLS certificate),
# chromium (kubemix ci's report opened in a real browser), libxml2-utils (xmllint: junit.xml checked
# against a JUnit schema), shellcheck (actionlint checks the example workflow's scripts with it).
# libvirt provider tests (real libvirtd and QEMU guests): libvirt-daemon-system + libvirt-clients
# (libvirtd, virtlogd, virsh), qemu-system-x86 + qemu-utils (QEMU, qemu-img), genisoimage (cloud-init
# seed ISOs and Windows config ISOs; isoinfo reads them back in tests), dnsmasq-base (libvirt's DHCP/DNS), iptables (libvirt's NAT rules), curl (image
# downloads); debootstrap, fdisk and e2fsprogs build the small Debian test image
# (scripts/libvirt/build-test-image.sh). Nothing is started here: the tests start libvirtd themselves.
# python3-venv: moto, the EC2 emulator the EC2 provider is tested against, lives in a venv.
# tmux: a real pseudo-terminal for the CLI tests of the live task list and Ctrl-C (test/helpers/terminal.ts).
# python3-yaml: PyYAML, the YAML parser cloud-init reads its seed with (the seeds kubemix writes are read back by it).
# gcc + libc6-dev: Kubernetes' pause program, built statically from its C source (scripts/release/build-pause.sh),
# and flannel's cgo build. libcap2-bin: setcap, for the CoreDNS image's file capability (fixtures/release/).
# Go (kubeconform, the k8s.io/kubernetes module's OpenAPI spec) and Python 3 with venv
# (openapi2jsonschema) come with the machine: scripts/kubernetes-schemas.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(openssh-server openssh-client iproute2 sudo procps util-linux python3-winrm python3-requests-ntlm openssl
  libvirt-daemon-system libvirt-clients qemu-system-x86 qemu-utils genisoimage dnsmasq-base iptables curl
  debootstrap fdisk e2fsprogs chromium libxml2-utils shellcheck python3-venv tmux python3-yaml gcc libc6-dev libcap2-bin)

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

# actionlint (checks the example GitHub Actions workflow), from the Go module proxy into GOPATH/bin.
ACTIONLINT_VERSION=v1.7.12
GO="$(command -v go || echo /usr/local/go/bin/go)"
if [ -x "$GO" ]; then
  actionlint="$("$GO" env GOPATH)/bin/actionlint"
  if ! "$actionlint" -version 2>/dev/null | grep -qx "$ACTIONLINT_VERSION"; then
    echo "setup: installing actionlint $ACTIONLINT_VERSION"
    "$GO" install "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION"
  fi
else
  echo "setup: no Go toolchain: actionlint (and its test) will be missing" >&2
fi

# `npm install` with the committed lock, not `npm ci`: the registry these machines reach has no
# builds of biome's other-platform binaries, so the lock cannot list them and `npm ci` refuses it.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm install --no-audit --no-fund
fi
# moto (PyPI moto[server], pinned): the EC2/SSM emulator the EC2 provider's tests start on loopback.
# A venv with Debian's python3, so no system Python is changed, made once per version under
# ~/.cache/kubemix (as the release build is; pip's install took ~40 s of a fresh clone's set-up) and
# linked as .tools/moto (ignored by git), where the tests and scripts/try-ec2.sh look.
MOTO_VERSION=5.2.5
moto_venv="${XDG_CACHE_HOME:-$HOME/.cache}/kubemix/moto-$MOTO_VERSION"
if [ ! -x "$moto_venv/bin/moto_server" ] || ! "$moto_venv/bin/python" -c "import moto, sys; sys.exit(moto.__version__ != '$MOTO_VERSION')" 2>/dev/null; then
  echo "setup: installing moto[server]==$MOTO_VERSION into $moto_venv"
  rm -rf "$moto_venv"
  mkdir -p "$(dirname "$moto_venv")"
  /usr/bin/python3 -m venv "$moto_venv"
  "$moto_venv/bin/pip" install --quiet "moto[server]==$MOTO_VERSION"
fi
mkdir -p .tools
if [ "$(readlink .tools/moto 2>/dev/null)" != "$moto_venv" ]; then
  rm -rf .tools/moto
  ln -s "$moto_venv" .tools/moto
fi

npm run build --silent

# Offline Kubernetes schemas for the version playbooks/versions.yaml installs: the lab's API server
# stand-in refuses unknown fields from its OpenAPI spec, and the tests check manifests with
# kubeconform -strict against its strict JSON schemas (Go module proxy and PyPI, never GitHub).
bash scripts/kubernetes-schemas.sh
# The release of the oldest supported minor the e2e tests build and the manifest checks validate
# against (test/helpers/kubernetes-test-versions.ts names the same release).
OLDEST_TESTED_KUBERNETES=1.36.4
bash scripts/kubernetes-schemas.sh "$OLDEST_TESTED_KUBERNETES"
# The releases the lab's own tests start clusters with (test/lab/helpers.ts and the other lab
# tests' initCluster calls): their OpenAPI specs, for the API server stand-in. Add a minor here
# when a test starts a cluster of another one.
LAB_TEST_KUBERNETES_VERSIONS=(1.31.2)
bash scripts/kubernetes-schemas.sh --spec-only "${LAB_TEST_KUBERNETES_VERSIONS[@]}"
# What the Go module proxy records about the release tags the lab's Windows flannel release models
# cite (the tag's commit), for the test that keeps each model at its pinned tag.
node dist/scripts/lab/record-release-tags.js
# The real programs of the pinned Kubernetes release (kubeadm, kubelet, control plane, etcd, pause, CoreDNS),
# built from the Go module proxy into ~/.cache/kubemix/release. From nothing (empty Go module and
# build caches, the modules downloaded from the proxy) it took 602 s = 10 minutes on 2 cores, two
# lanes at once (the Kubernetes binaries 594 s; before the lanes and the one `go build` of them,
# 1140 s one program at a time); nothing when cached (scripts/release/build-release.sh prints each
# step's time). The builds are reproducible: a cold build's binaries are byte-identical to the cached.
bash scripts/release/build-release.sh
# Upstream flannel's Documentation/kube-flannel.yml at the tag versions.yaml pins (Go module proxy,
# never GitHub): test/manifests/flannel-upstream.test.ts diffs kubemix's Linux flannel manifest against it.
bash scripts/flannel-manifest.sh
echo "setup: done"
