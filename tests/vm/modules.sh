# modules.sh: sourced by vm.sh and sysboot.sh. The guest kernel's modules
# ($kdir/modules, from scripts/pkgcache) unpacked and put in load order: each
# module's dependencies (from its .modinfo) before it. Needs $kdir, $tmp, die().

mod_file() { find "$kdir/modules" -name "$1.ko" -o -name "$1.ko.xz" -o -name "$1.ko.zst" | head -n1; }

mod_extract() { # module -> plain .ko on stdout
	case $1 in
	*.xz) xz -dc "$1" ;;
	*.zst) zstd -dcq "$1" ;;
	*) cat "$1" ;;
	esac
}

mod_deps() {
	local f; f=$(mod_file "$1"); [ -n "$f" ] || die "module $1 not in $kdir"
	mod_extract "$f" > "$tmp/m.ko"
	objcopy -O binary --only-section=.modinfo "$tmp/m.ko" /dev/stdout |
		tr '\0' '\n' | sed -n 's/^depends=//p' | tr ',' ' '
}

# Depth-first: dependencies before the module (netfs, 9pnet, 9pnet_virtio, 9p).
declare -A seen
order=()
visit() {
	local m=$1 d
	[ -n "${seen[$m]:-}" ] && return
	seen[$m]=1
	for d in $(mod_deps "$m"); do visit "$d"; done
	order+=("$m")
}
