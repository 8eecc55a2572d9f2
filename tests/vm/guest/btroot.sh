# btroot.sh: Debian's bpftrace as a fleet runs it, from a trixie chroot (the
# share's bt.tar: tests/vm/rootfs.sh build trixie bpftrace) unpacked into guest
# memory: over 9p every exec would fetch its 200 MB of libraries from the host
# again (9p without a cache keeps no pages). Sourced by the watch part and the
# bpftrace bench (busybox sh).
# bt_root DIR TAR: the chroot at DIR, with the kernel's filesystems bound in
bt_root() {
	mkdir -p "$1" && mount -t tmpfs -o size=640m tmpfs "$1" || return 1
	tar -xf "$2" -C "$1" || { umount "$1"; return 1; }
	for _d in proc sys sys/kernel/tracing sys/kernel/btf sys/fs/bpf dev; do
		mount --bind /$_d "$1/$_d" || return 1
	done
}
# bt_unroot DIR: all of it gone
bt_unroot() {
	for _d in dev sys/fs/bpf sys/kernel/btf sys/kernel/tracing sys proc; do umount "$1/$_d"; done
	umount "$1"
}
