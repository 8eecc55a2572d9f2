#!/usr/bin/env bash
# vm.sh: boot a Debian guest kernel under QEMU with a busybox initramfs and a 9p share.
#
#   vm.sh initramfs SERIES           build (or reuse) the initramfs; prints its path
#   vm.sh run SERIES SHARE [SECONDS] boot, run SHARE/job in the guest, power off
#
# SERIES is 6.12 (bookworm-backports), 6.1 (bookworm), 5.10 (bullseye) or newest
# (trixie-backports' current kernel); see scripts/pkgcache. ARCH=arm64 boots
# Debian's arm64 kernel of the series instead (qemu-system-aarch64's virt machine). The job's output lands in
# SHARE/out/log, ending in "# vm-done rc=N"; without that line the guest hung or
# crashed, and run says so and fails. QEMU always runs single-threaded TCG under
# timeout: KVM hangs on this machine and multi-threaded TCG can corrupt the
# kernel's self-patched text.
set -euo pipefail
# a step failing inside $(...) fails the script (a missing cpio once left an empty
# initramfs cached on a fresh machine)
shopt -s inherit_errexit
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
OUTPUT=${OUTPUT:-$top/build}
case $OUTPUT in /*) ;; *) OUTPUT=$top/$OUTPUT ;; esac

# A failure says what failed in one line, as pkgcache's do. die() names the
# cause; any other step that fails is named by the ERR trap where it failed
# (errtrace: in functions and command substitutions too). Both exit 3, which
# the levels above (and pkgcache below) pass on without a second line; where
# errexit is off the caller looks at the status itself.
die() { echo "vm.sh: $*" >&2; exit 3; }
on_err() {
	[[ $- == *e* ]] || return 0
	[ "$1" -eq 3 ] || echo "vm.sh: \`$BASH_COMMAND\` failed (exit $1)" >&2
	exit 3
}
set -E
trap 'on_err $?' ERR

# The guest's architecture: its packages, busybox, modules' objcopy, QEMU, console.
. "$here/arch.sh"

# Modules the 9p share needs; dependencies are added from .modinfo, and what the
# kernel has built in (virtio_pci from 6.12 on) is left out by modules.sh.
want_modules() { echo virtio_pci 9pnet_virtio 9p; }

. "$here/modules.sh"

initramfs() {
	local series=$1 rel out root b lib f
	kdir=$("$top/scripts/pkgcache" kernel "$series" $karch)
	rel=$(cat "$kdir/release")
	out=$OUTPUT/vm/$rel/initrd.cpio.gz
	if [ -f "$out" ] && [ "$out" -nt "$here/init" ] && [ "$out" -nt "$here/vm.sh" ] &&
		[ "$out" -nt "$here/modules.sh" ] && [ "$out" -nt "$here/arch.sh" ]; then
		echo "$out"; return
	fi
	mkdir -p "$OUTPUT/vm/$rel"
	tmp=$(mktemp -d); trap 'rm -rf "$tmp"' RETURN
	root=$tmp/root
	mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,modules,lib64,usr/lib,lib/x86_64-linux-gnu}
	b=$(guest_busybox)
	cp "$b" "$root/bin/busybox"
	cp "$here/init" "$root/init"; chmod 755 "$root/init"
	for m in $(want_modules "$series"); do visit "$m"; done
	for m in "${order[@]}"; do mod_extract "$(mod_file "$m")" > "$root/modules/$m.ko"; done
	printf '%s\n' "${order[@]}" > "$root/modules/order"
	# not loaded at boot: tests load them to change the module list. A kernel
	# built without them is warned about; one that lists them but lacks the file
	# is broken.
	for m in dummy ifb; do
		if b=$(mod_file $m) && [ -n "$b" ]; then mod_extract "$b" > "$root/modules/$m.ko"
		elif mod_built $m; then die "$rel: modules.order lists $m but there is no file"
		elif mod_builtin $m; then echo "vm.sh: $rel has $m built in: no module to load" >&2
		else echo "vm.sh: $rel has no $m module" >&2
		fi
	done
	# bpftool for the link checks, strace to make a system call fail (both
	# dynamic), with the libraries they need: the host's for x86-64 guests,
	# bookworm's arm64 packages for arm64 ones
	if [ $karch = amd64 ]; then
		for b in bpftool strace; do
			b=$(command -v $b) || die "$b missing: make deps"
			cp "$b" "$root/bin/"
			for lib in $(ldd "$b" | grep -o '/[^ ]*'); do
				mkdir -p "$root$(dirname "$lib")"; cp -L "$lib" "$root$lib"
			done
		done
	else
		b=$("$top/scripts/pkgcache" guest-tools $karch)
		cp -a "$b/lib" "$b/usr" "$root/"
		ln -s /usr/sbin/bpftool "$root/bin/bpftool"
		ln -s /usr/bin/strace "$root/bin/strace"
	fi
	# the newest bpftool Debian ships, which names a kprobe.multi link's
	# functions (bookworm's does not), with its own libraries and loader
	b=$("$top/scripts/pkgcache" bpftool $karch)
	mkdir -p "$root/opt/bpftool"
	cp -a "$b/usr" "$root/opt/bpftool/"
	lib= b=
	for f in "$root"/opt/bpftool/usr/lib/*-linux-gnu; do [ -d "$f" ] && lib=${f#"$root"/opt/bpftool/}; done
	for f in "$root"/opt/bpftool/usr/lib64/ld-linux-* "$root"/opt/bpftool/usr/lib/ld-linux-*; do
		[ -e "$f" ] && b=${f#"$root"/opt/bpftool/}
	done
	[ -n "$lib" ] && [ -n "$b" ] || die "no loader or libraries in $karch's bpftool packages"
	printf '#!/bin/sh\nexec /opt/bpftool/%s --library-path /opt/bpftool/%s /opt/bpftool/usr/sbin/bpftool "$@"\n' \
		"$b" "$lib" > "$root/bin/bpftool-new"
	chmod 755 "$root/bin/bpftool-new"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out.tmp.$$"
	mv "$out.tmp.$$" "$out"
	echo "$out"
}

run() {
	local series=$1 share=$2 secs=${3:-120} initrd rc
	local append="quiet loglevel=3 panic=-1 oops=panic" clock=()
	# VM_ICOUNT=N: the guest's clock counts its instructions (2^N ns each), not
	# the host's time: a ratio of two runs then carries none of the host's noise
	[ -z "${VM_ICOUNT:-}" ] || clock=(-icount "shift=$VM_ICOUNT,sleep=off")
	initrd=$(initramfs "$series")
	kdir=$("$top/scripts/pkgcache" kernel "$series" $karch)
	[ -f "$share/job" ] || die "$share/job missing"
	mkdir -p "$share/out"; rm -f "$share/out/log"
	set +e
	timeout --kill-after=10 "$secs" "${qemu[@]}" -append "console=$console $append" \
		-accel tcg,thread=single "${clock[@]}" -smp 2 -m 1536 \
		-kernel "$kdir/vmlinuz" -initrd "$initrd" \
		-virtfs local,path="$share",mount_tag=host,security_model=none,id=host \
		-display none -monitor none -serial file:"$share/console.log" \
		-no-reboot -nodefaults
	rc=$?
	set -e
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		echo "vm.sh: guest $series did not power off within ${secs}s (hung): see $share/console.log" >&2
		return 1
	fi
	if ! grep -q '^# vm-done rc=' "$share/out/log" 2>/dev/null; then
		echo "vm.sh: guest $series stopped before finishing its job (crash or panic; qemu rc $rc): see $share/console.log" >&2
		tail -n 20 "$share/console.log" >&2 || true
		return 1
	fi
	return 0
}

case ${1:-} in
initramfs) [ $# -eq 2 ] || die "usage: vm.sh initramfs SERIES"; initramfs "$2" ;;
run) [ $# -ge 3 ] || die "usage: vm.sh run SERIES SHARE [SECONDS]"; run "$2" "$3" "${4:-120}" ;;
*) die "usage: vm.sh initramfs SERIES | run SERIES SHARE [SECONDS]" ;;
esac
