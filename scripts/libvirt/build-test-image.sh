#!/usr/bin/env bash
# Builds the small Debian 13 (trixie) cloud image the libvirt tests and benchmarks boot, and
# prints its path. Cached: an image already at OUTPUT is kept (delete it to rebuild).
#
#   scripts/libvirt/build-test-image.sh [OUTPUT.qcow2]   (default /var/cache/kubemix-tests/debian-13-test.qcow2)
#
# What it holds (RESEARCH.md, "A real libvirt guest on these machines"): debootstrap minbase with
# cloud-init, openssh-server, python3-cffi-backend (cloud-init fails to install without it), the
# cloud kernel, growpart; per-instance state reset (no SSH host keys, empty machine-id) so every
# guest is a new instance; NoCloud as cloud-init's only datasource. Boot: a partitioned disk
# (growpart can grow it) with GRUB for BIOS, written without loop devices: the root filesystem is
# made from the directory by mkfs.ext4 -d, GRUB's boot.img goes to the MBR and a core.img made by
# grub-mkimage (prefix (hd0,msdos1)/boot/grub) right after it, which is where boot.img looks by
# default (sector 1). Needs root, debootstrap, e2fsprogs, fdisk (sfdisk), qemu-utils, and deb.debian.org.
set -euo pipefail

out=${1:-/var/cache/kubemix-tests/debian-13-test.qcow2}
if [ -s "$out" ]; then
  echo "$out"
  exit 0
fi
mirror=${KUBEMIX_DEBIAN_MIRROR:-http://deb.debian.org/debian}
mkdir -p "$(dirname "$out")"
work=$(mktemp -d /tmp/kmx-image.XXXXXX)
root=$work/root
# debootstrap mounts /proc and /sys in the target while it runs: never copy or delete through them.
unmount_all() {
  for m in proc sys dev/pts dev; do
    if mountpoint -q "$root/$m" 2>/dev/null; then umount -l "$root/$m"; fi
  done
}
trap 'unmount_all; rm -rf --one-file-system "$work"' EXIT

# iptables: kubelet's packages depend on it (offline installs bring no dependencies).
packages=systemd-sysv,udev,cloud-init,openssh-server,python3-cffi-backend,linux-image-cloud-amd64,grub-pc-bin,cloud-guest-utils,iproute2,ifupdown,netbase,iptables
echo "build-test-image: debootstrap trixie ($packages)" >&2
debootstrap --variant=minbase --include="$packages" trixie "$root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -20 "$work/debootstrap.log" >&2; exit 1; }
unmount_all

# A fresh instance on every boot of a copy: no host keys, no machine id, no hostname.
rm -f "$root"/etc/ssh/ssh_host_*
: >"$root/etc/machine-id"
rm -f "$root/var/lib/dbus/machine-id"
echo localhost >"$root/etc/hostname"
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
cat >"$root/etc/cloud/cloud.cfg.d/90-kubemix-test.cfg" <<'CFG'
# kubemix test image: the seed comes on a NoCloud CD-ROM; no network datasource is probed.
datasource_list: [ NoCloud, None ]
CFG
echo '/dev/vda1 / ext4 defaults,errors=remount-ro 0 1' >"$root/etc/fstab"
printf 'auto lo\niface lo inet loopback\nsource /etc/network/interfaces.d/*\n' >"$root/etc/network/interfaces"

# A guest has one emulated vCPU (TCG): whatever runs beside the boot's critical path (cloud-init,
# networking, sshd) delays it. These units do nothing for a headless test guest: gettys on tty2-6
# (getty-static starts them when there is no D-Bus), GRUB's boot record, ext4 scrub snapshots, and
# the timers that would run apt, dpkg backups, e2scrub or fstrim in the middle of a test. The real
# cloud-init and sshd keep their units.
systemctl --root="$root" mask getty-static.service grub-common.service e2scrub_reap.service \
  apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer fstrim.timer >/dev/null
# Caches every copy would otherwise rebuild at its first boot (ldconfig.service and the journal
# catalog run when /usr looks newer than /etc/.updated, as it does after mkfs.ext4 -d): made here
# once. Nor does a test guest use binfmt_misc, debugfs, tracefs, fusectl or configfs. One guest
# booted with and without (single runs, systemd-analyze): ssh.service up at 63.7 s instead of
# 66.9 s, QEMU's user CPU 100 s instead of 106 s; `systemd-analyze blame` gave ldconfig 4.6 s and
# the catalog 3.5 s on the single emulated vCPU.
chroot "$root" ldconfig
chroot "$root" journalctl --update-catalog
systemctl --root="$root" mask ldconfig.service systemd-journal-catalog-update.service systemd-binfmt.service \
  proc-sys-fs-binfmt_misc.automount sys-kernel-debug.mount sys-kernel-tracing.mount \
  sys-fs-fuse-connections.mount sys-kernel-config.mount >/dev/null
# The initramfs has to find the root disk and the seed: the cloud kernel builds in ext4 and
# virtio-pci but not virtio-blk, nor the IDE CD-ROM kubemix attaches the NoCloud seed on (ata_piix,
# sr_mod; isofs to read it). Debian's default (MODULES=most) packs every storage driver, which udev
# in the initramfs then probes under emulation. Without the CD-ROM's drivers there, udev loaded them
# from the root filesystem, and under TCG the CD-ROM could appear after cloud-init's local stage had
# looked for the seed: seen with 2-vCPU guests, sr0 at 79 s, init-local at 68 s, and cloud-init
# settled on DataSourceNone (no key for root: the guest never let kubemix in).
sed -i 's/^MODULES=.*/MODULES=list/' "$root/etc/initramfs-tools/initramfs.conf"
printf '%s\n' virtio_blk ata_piix sr_mod isofs >>"$root/etc/initramfs-tools/modules"
chroot "$root" update-initramfs -u -k all >"$work/initramfs.log" 2>&1 || { tail -20 "$work/initramfs.log" >&2; exit 1; }

kernel=$(cd "$root/boot" && ls vmlinuz-* | sort -V | tail -n 1)
initrd=initrd.img-${kernel#vmlinuz-}
[ -f "$root/boot/$initrd" ] || { echo "build-test-image: no $initrd in the image" >&2; exit 1; }
mkdir -p "$root/boot/grub/i386-pc"
cp "$root"/usr/lib/grub/i386-pc/*.mod "$root"/usr/lib/grub/i386-pc/*.lst "$root/boot/grub/i386-pc/"
cat >"$root/boot/grub/grub.cfg" <<CFG
serial --unit=0 --speed=115200
terminal_input serial console
terminal_output serial console
set timeout=0
menuentry 'Debian 13 (kubemix test image)' {
  linux /boot/$kernel root=/dev/vda1 ro console=tty0 console=ttyS0,115200 net.ifnames=0
  initrd /boot/$initrd
}
CFG
chroot "$root" grub-mkimage -O i386-pc -o /tmp/core.img -p '(hd0,msdos1)/boot/grub' \
  biosdisk part_msdos ext2 normal linux configfile serial terminal echo
mv "$root/tmp/core.img" "$work/core.img"

size_mib=2048
offset_mib=1
truncate -s "$((size_mib - offset_mib))M" "$work/root.ext4"
mkfs.ext4 -q -L root -d "$root" "$work/root.ext4"
truncate -s "${size_mib}M" "$work/disk.raw"
printf 'label: dos\nstart=%s, type=83, bootable\n' "$((offset_mib * 2048))" | sfdisk -q "$work/disk.raw"
dd if="$root/usr/lib/grub/i386-pc/boot.img" of="$work/disk.raw" bs=440 count=1 conv=notrunc status=none
dd if="$work/core.img" of="$work/disk.raw" bs=512 seek=1 conv=notrunc status=none
dd if="$work/root.ext4" of="$work/disk.raw" bs=1M seek="$offset_mib" conv=notrunc status=none
qemu-img convert -c -O qcow2 "$work/disk.raw" "$out.partial"
mv "$out.partial" "$out"
echo "$out"
