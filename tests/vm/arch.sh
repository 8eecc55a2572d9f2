# arch.sh: sourced by vm.sh and sysboot.sh. The guest's architecture, from ARCH (x86,
# the default, or arm64): its Debian architecture ($karch, for scripts/pkgcache), its
# serial console ($console), its QEMU machine ("${qemu[@]}"), the objcopy that reads
# its modules ($OBJCOPY, for modules.sh) and its static busybox (guest_busybox).
# Needs $top and die().
case ${ARCH:-x86} in
x86) karch=amd64 console=ttyS0 qemu=(qemu-system-x86_64 -cpu max) ;;
arm64)
	karch=arm64 console=ttyAMA0
	# pauth-impdef: QEMU's own pointer authentication, far cheaper under TCG
	qemu=(qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on)
	export OBJCOPY=aarch64-linux-gnu-objcopy
	;;
*) die "ARCH=$ARCH: x86 or arm64" ;;
esac

# guest_busybox: the path of a static busybox the guest runs, or die
guest_busybox() {
	local b=/bin/busybox
	[ $karch = amd64 ] || b=$("$top/scripts/pkgcache" busybox $karch) || die "no $karch busybox"
	readelf -l "$b" | grep 'program interpreter' >/dev/null && die "$b is not static: install busybox-static"
	echo "$b"
}
