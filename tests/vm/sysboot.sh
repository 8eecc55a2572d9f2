#!/usr/bin/env bash
# sysboot.sh: boot a real Debian system (systemd as PID 1) on a guest kernel under
# QEMU, for the tests of ksymattach as a fleet service (its .deb, its units at boot,
# node_exporter). tests/vm/vm.sh is the light sibling: busybox only, no disk.
#
#   sysboot.sh image [--deb FILE]... SERIES ROOTFS_TAR IMAGE [EXTRA_DIR...]
#       make the ext4 disk IMAGE from ROOTFS_TAR (tests/vm/rootfs.sh build SUITE) with the
#       SERIES kernel's modules, the test job unit and the settings of a test VM;
#       each EXTRA_DIR's contents are copied over the root, then each --deb is
#       installed (dpkg -i chrooted into the tree: its units are enabled for the
#       first boot, nothing is started)
#   sysboot.sh run SERIES IMAGE SHARE [SECONDS]
#       boot IMAGE (default limit 300s); once the boot has finished (or half the
#       limit has passed), the guest runs `sh SHARE/job` in SHARE (mounted at /host),
#       logs to SHARE/out/log, ending in "# vm-done rc=N", and powers off
#   sysboot.sh initramfs SERIES
#       build (or reuse) the initramfs that mounts /dev/vda; prints its path
#
# SERIES is a kernel series of scripts/pkgcache: 6.12 (bookworm-backports), 6.1
# (bookworm), newest (trixie-backports' current kernel). The suite is the rootfs
# tarball's (bookworm or trixie, merged /usr both): nothing here depends on it. The
# image is written in place by the guest: boot it again and its state (files,
# /var/log/journal) is kept.
# The guest: hostname ksa-guest, root without a password on the serial console, no
# network device, persistent journal, tracefs/debugfs/bpffs mounted by systemd. The job runs
# under /bin/sh as root in ksa-test.service, cwd /host, stdin /dev/null. Before it,
# SHARE/out/boot gets the systemd state ("running", "degraded", ...) and
# `systemd-analyze time`; the job sees the state in $KSA_SYSTEM_STATE. The serial
# console goes to SHARE/console.log. SYSBOOT_APPEND adds kernel parameters. As in
# vm.sh, QEMU always runs single-threaded TCG under timeout, and a guest that hangs
# or stops before "# vm-done" is a failure. KASLR stays on: each boot has another
# kernel base. image needs root (ownership in the tree, chroot for depmod and
# dpkg); run does not.
# ARCH=arm64: Debian's arm64 kernel of the series on qemu-system-aarch64's virt
# machine (console ttyAMA0), an arm64 ROOTFS_TAR (ARCH=arm64 rootfs.sh) and an arm64
# busybox in the initramfs; image runs the tree's depmod and dpkg under foreign.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
OUTPUT=${OUTPUT:-$top/build}
case $OUTPUT in /*) ;; *) OUTPUT=$top/$OUTPUT ;; esac

die() { echo "sysboot.sh: $*" >&2; exit 1; }

# The guest's architecture: its packages, busybox, modules' objcopy, QEMU, console;
# and how the tree's own programs run on this host (another architecture's through
# foreign.sh).
. "$here/arch.sh"
inroot=()
[ $karch = amd64 ] || inroot=("$here/foreign.sh" "$karch")

# What mounting the root disk needs before systemd runs, and the 9p share (modprobe
# of the share's four modules took 6s in the booted guest under TCG, on the way to
# the job); dependencies come from .modinfo, and what the kernel has built in
# (virtio_pci from 6.12 on) is left out by modules.sh. jbd2 (and ext4 on older
# kernels) asks the crypto API for crc32c (a softdep, not in depends=), and there is
# no modprobe here to load it on demand: the module is crc32c_generic, or
# crc32c-cryptoapi on kernels whose crc32c went to lib/crc (7.3); the kernel's own
# files say which.
want_modules() {
	local c
	for c in crc32c_generic crc32c-cryptoapi; do
		if mod_builtin "$c" || [ -n "$(mod_file "$c")" ]; then break; fi
	done
	echo virtio_pci virtio_blk "$c" ext4 9pnet_virtio 9p
}

# Hardware a QEMU guest without devices never has: left out of /lib/modules to keep
# the image small (6.1's modules are not compressed: 391M, 180M without these).
PRUNE=(sound drivers/gpu drivers/media drivers/net/wireless drivers/net/ethernet
	drivers/infiniband drivers/iio drivers/staging drivers/bluetooth net/bluetooth
	net/mac80211 net/wireless)

. "$here/modules.sh"

# The initramfs /init: busybox only; hands over to systemd on the disk.
init_script() {
	cat <<'INIT'
#!/bin/busybox sh
# sysboot initramfs: load what the root disk needs, mount it, exec systemd.
export PATH=/bin
busybox mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
fail() { echo "sysboot-init: $*"; busybox poweroff -f; }
busybox mount -t proc proc /proc
busybox mount -t sysfs sysfs /sys
for m in $(busybox cat /modules/order); do
	busybox insmod /modules/$m.ko || echo "sysboot-init: insmod $m failed"
done
# virtio_blk probes in the background: wait for the disk (at most 30s).
i=0
while [ ! -b /dev/vda ]; do
	[ $i -lt 300 ] || fail "no /dev/vda"
	busybox sleep 0.1; i=$((i + 1))
done
busybox mount -t ext4 -o rw,noatime /dev/vda /newroot || fail "cannot mount /dev/vda"
# (a symlink to an absolute path: only resolvable after switch_root)
[ -e /newroot/sbin/init ] || [ -L /newroot/sbin/init ] || fail "no /sbin/init on /dev/vda"
# systemd finds /dev, /proc and /sys mounted, as after any initramfs.
busybox mount --move /dev /newroot/dev
busybox mount --move /proc /newroot/proc
busybox mount --move /sys /newroot/sys
exec busybox switch_root /newroot /sbin/init
INIT
}

initramfs() {
	local series=$1 rel out root b
	kdir=$("$top/scripts/pkgcache" kernel "$series" $karch)
	rel=$(cat "$kdir/release")
	out=$OUTPUT/vm/$rel/sysboot-initrd.cpio.gz
	if [ -f "$out" ] && [ "$out" -nt "$here/sysboot.sh" ] && [ "$out" -nt "$here/modules.sh" ] &&
		[ "$out" -nt "$here/arch.sh" ]; then
		echo "$out"; return
	fi
	mkdir -p "$OUTPUT/vm/$rel"
	tmp=$(mktemp -d); trap 'rm -rf "$tmp"' RETURN
	root=$tmp/root
	mkdir -p "$root"/{bin,dev,proc,sys,newroot,modules}
	b=$(guest_busybox)
	cp "$b" "$root/bin/busybox"
	init_script > "$root/init"; chmod 755 "$root/init"
	for m in $(want_modules); do visit "$m"; done
	for m in "${order[@]}"; do mod_extract "$(mod_file "$m")" > "$root/modules/$m.ko"; done
	printf '%s\n' "${order[@]}" > "$root/modules/order"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out.tmp.$$"
	mv "$out.tmp.$$" "$out"
	echo "$out"
}

# Runs in the guest as ksa-test.service: mount the share, wait for the boot to
# finish, run the job, power off.
job_runner() {
	cat <<'RUNNER'
#!/bin/sh
# ksa-test: the host's job (9p share "host" at /host), run once the boot has finished.
halt() { sync; systemctl --no-block poweroff || poweroff -f; exit "$1"; }
# Loaded by the initramfs already.
[ -d /sys/module/9p ] || modprobe -a 9pnet_virtio 9p || echo "ksa-test: modprobe 9p failed"
mkdir -p /host
if ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 host /host; then
	echo "# vm-error: cannot mount the 9p share" > /dev/console
	halt 1
fi
mkdir -p /host/out
# Bounded (half of run's limit, ksa_test.wait=): a unit stuck in start must not
# keep the job from saying so.
wait=$(sed -n 's/.*ksa_test\.wait=\([0-9]*\).*/\1/p' /proc/cmdline)
KSA_SYSTEM_STATE=$(timeout "${wait:-150}" systemctl is-system-running --wait)
[ -n "$KSA_SYSTEM_STATE" ] || KSA_SYSTEM_STATE=unknown
export KSA_SYSTEM_STATE
{ echo "state=$KSA_SYSTEM_STATE"; echo "uptime=$(cut -d' ' -f1 /proc/uptime)"; systemd-analyze time; } \
	> /host/out/boot 2>&1
cd /host
sh /host/job > /host/out/log 2>&1 < /dev/null
rc=$?
echo "# vm-done rc=$rc" >> /host/out/log
# The console log gets it too (not the journal: tests read that).
cat /host/out/log > /dev/console
cd /
umount /host
halt 0
RUNNER
}

job_unit() {
	cat <<'UNIT'
[Unit]
Description=ksymattach test job from the host's 9p share
# Type=simple: its start job ends at once, so the boot can finish (the runner waits
# for that) while the job runs.
After=multi-user.target

[Service]
Type=simple
ExecStart=/usr/local/lib/ksa-test/run
StandardOutput=journal+console
StandardError=journal+console

[Install]
WantedBy=multi-user.target
UNIT
}

# Units that only cost boot time in a short-lived VM without devices or network.
MASK=(apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer man-db.timer
	e2scrub_all.timer e2scrub_reap.service fstrim.timer systemd-firstboot.service
	getty@tty1.service systemd-timesyncd.service)

image() {
	local debs=() excl series root_tar img root rel m d deb size tmpimg
	while [ "${1:-}" = --deb ]; do
		if [ $# -lt 2 ] || [ ! -f "$2" ]; then die "--deb needs a file"; fi
		debs+=("$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"); shift 2
	done
	[ $# -ge 3 ] || die "usage: sysboot.sh image [--deb FILE]... SERIES ROOTFS_TAR IMAGE [EXTRA_DIR...]"
	series=$1 root_tar=$2 img=$3; shift 3
	[ "$(id -u)" -eq 0 ] || die "image needs root (file ownership in the tree, chroot)"
	[ -f "$root_tar" ] || die "$root_tar missing: tests/vm/rootfs.sh build"
	for d in "$@"; do [ -d "$d" ] || die "$d is not a directory"; done
	kdir=$("$top/scripts/pkgcache" kernel "$series" $karch)
	rel=$(cat "$kdir/release")
	mkdir -p "$(dirname "$img")"
	# Next to the image: the rename that publishes it stays on one file system.
	tmp=$(mktemp -d "$(dirname "$img")/.sysboot.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	root=$tmp/root
	mkdir "$root"
	tar --zstd --numeric-owner --xattrs --xattrs-include='*' -xpf "$root_tar" -C "$root"

	# The guest kernel's modules, indexed by the guest's own depmod (the host may
	# have no kmod; the formats then match the modprobe that reads them).
	mkdir -p "$root/usr/lib/modules/$rel"
	excl=(); for d in "${PRUNE[@]}"; do excl+=("--exclude=./kernel/$d"); done
	tar -C "$kdir/modules" "${excl[@]}" -cf - . |
		tar -C "$root/usr/lib/modules/$rel" -xf -
	${inroot[@]+"${inroot[@]}"} chroot "$root" /sbin/depmod -a "$rel"

	echo ksa-guest > "$root/etc/hostname"
	printf '127.0.0.1\tlocalhost\n127.0.1.1\tksa-guest\n::1\tlocalhost ip6-localhost ip6-loopback\n' \
		> "$root/etc/hosts"
	# Mounted rw by the initramfs: nothing for fsck to do before systemd.
	echo '/dev/vda / ext4 rw,noatime 0 0' > "$root/etc/fstab"
	# A machine id of its own: a boot with none is a "first boot" (systemd-firstboot
	# prompts, presets are applied), and the journal of boot 1 stays readable in boot 2.
	od -An -N16 -tx1 /dev/urandom | tr -d ' \n' > "$root/etc/machine-id"; echo >> "$root/etc/machine-id"
	# Root logs in on the serial console without a password (serial-getty, from console=).
	sed -i 's/^root:[^:]*:/root::/' "$root/etc/shadow"
	# /etc and /var count as updated: no hwdb rebuild, ldconfig or catalog update
	# on the first boot (ConditionNeedsUpdate).
	touch "$root/etc/.updated" "$root/var/.updated"
	for m in "${MASK[@]}"; do
		ln -sfn /dev/null "$root/etc/systemd/system/$m"
		find "$root/etc/systemd/system" -path "*.wants/$m" -delete
	done
	mkdir -p "$root/etc/systemd/system.conf.d"
	# Bounded stops: poweroff must not wait 90s on a unit a test left hanging.
	printf '[Manager]\nDefaultTimeoutStopSec=15s\n' > "$root/etc/systemd/system.conf.d/ksa-test.conf"

	mkdir -p "$root/usr/local/lib/ksa-test"
	job_runner > "$root/usr/local/lib/ksa-test/run"; chmod 755 "$root/usr/local/lib/ksa-test/run"
	job_unit > "$root/etc/systemd/system/ksa-test.service"
	mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
	ln -sfn /etc/systemd/system/ksa-test.service "$root/etc/systemd/system/multi-user.target.wants/"

	# Over the tree, not cp -a: /lib and /bin are symlinks (merged /usr) that an
	# EXTRA_DIR's lib/ must go through, and existing directories keep their modes
	# (a mktemp -d's 0700 must not become the mode of /).
	for d in "$@"; do
		tar -C "$d" --numeric-owner -cf - . |
			tar -C "$root" --numeric-owner --keep-directory-symlink --no-overwrite-dir -xf -
	done
	for deb in "${debs[@]}"; do
		# Chrooted: the maintainer scripts enable units (deb-systemd-helper) and
		# start none, as no systemd runs in the tree.
		cp "$deb" "$root/tmp/"
		${inroot[@]+"${inroot[@]}"} chroot "$root" dpkg -i "/tmp/$(basename "$deb")" >&2 ||
			die "cannot install $deb"
		rm -f "$root/tmp/$(basename "$deb")"
	done

	# Room for what the tests install and write; a sparse file, so it costs nothing.
	size=$(( $(du -sm "$root" | cut -f1) + 1024 ))
	tmpimg=$tmp/image
	truncate -s "${size}M" "$tmpimg"
	mkfs.ext4 -q -F -L ksa-root -d "$root" "$tmpimg"
	mv "$tmpimg" "$img"
	echo "$img"
}

run() {
	local series=$1 img=$2 share=$3 secs=${4:-300} initrd rc qpid
	[ -f "$img" ] || die "$img missing: sysboot.sh image"
	[ -f "$share/job" ] || die "$share/job missing"
	initrd=$(initramfs "$series")
	kdir=$("$top/scripts/pkgcache" kernel "$series" $karch)
	# An image of another series, or from before pkgcache refreshed the kernel, has
	# no modules for this one: say so rather than fail in the guest.
	debugfs -R "stat /usr/lib/modules/$(cat "$kdir/release")/modules.dep" "$img" 2>/dev/null |
		grep '^Inode:' >/dev/null || die "$img has no modules for $(cat "$kdir/release"): make it with 'sysboot.sh image $series'"
	mkdir -p "$share/out"; rm -f "$share/out/log" "$share/out/boot"
	set +e
	# In the background, so that a signal to this script stops QEMU as well.
	timeout --kill-after=10 "$secs" "${qemu[@]}" \
		-accel tcg,thread=single -smp 2 -m 1536 \
		-kernel "$kdir/vmlinuz" -initrd "$initrd" \
		-append "console=$console root=/dev/vda rw quiet loglevel=3 panic=-1 oops=panic ksa_test.wait=$((secs / 2)) ${SYSBOOT_APPEND:-}" \
		-drive file="$img",format=raw,if=none,id=root,cache=unsafe \
		-device virtio-blk-pci,drive=root \
		-virtfs local,path="$share",mount_tag=host,security_model=none,id=host \
		-display none -monitor none -serial file:"$share/console.log" \
		-no-reboot -nodefaults &
	qpid=$!
	stopped=
	trap 'kill -TERM $qpid 2>/dev/null; stopped=1' INT TERM
	while :; do
		wait $qpid; rc=$?
		kill -0 $qpid 2>/dev/null || break
	done
	trap - INT TERM
	set -e
	[ -z "$stopped" ] || die "interrupted; guest $series stopped"
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		echo "sysboot.sh: guest $series did not power off within ${secs}s (hung): see $share/console.log" >&2
		tail -n 20 "$share/console.log" >&2 || true
		return 1
	fi
	if ! grep -q '^# vm-done rc=' "$share/out/log" 2>/dev/null; then
		echo "sysboot.sh: guest $series stopped before finishing its job (crash or panic; qemu rc $rc): see $share/console.log" >&2
		tail -n 20 "$share/console.log" >&2 || true
		return 1
	fi
	return 0
}

case ${1:-} in
initramfs) [ $# -eq 2 ] || die "usage: sysboot.sh initramfs SERIES"; initramfs "$2" ;;
image) shift; image "$@" ;;
run) [ $# -ge 4 ] || die "usage: sysboot.sh run SERIES IMAGE SHARE [SECONDS]"; run "$2" "$3" "$4" "${5:-300}" ;;
*) die "usage: sysboot.sh image [--deb FILE]... SERIES ROOTFS_TAR IMAGE [EXTRA_DIR...] | run SERIES IMAGE SHARE [SECONDS] | initramfs SERIES" ;;
esac
