# modules.sh: sourced by vm.sh and sysboot.sh. The guest kernel's modules
# ($kdir/modules, from scripts/pkgcache) unpacked and put in load order: each
# module's dependencies (from its .modinfo) before it. Needs $kdir, $tmp, die().

# A module's name matches its file with - and _ alike (crc32c_cryptoapi is
# crc32c-cryptoapi.ko), as for modprobe.
mod_pat() { echo "${1//[-_]/[-_]}"; }

mod_file() {
	local p; p=$(mod_pat "$1")
	find "$kdir/modules" -name "$p.ko" -o -name "$p.ko.xz" -o -name "$p.ko.zst" | sed -n 1p
}

# Built into the kernel (virtio_pci is on 6.12 and later, a module on 6.1 and
# 5.10): the kernel's own modules.builtin says so, whatever the version.
mod_builtin() { grep -q "/$(mod_pat "$1")\.ko\$" "$kdir/modules/modules.builtin" 2>/dev/null; }

# Built as a module for this kernel (modules.order lists it), whether or not the
# file is there.
mod_built() { grep -q "/$(mod_pat "$1")\.ko\$" "$kdir/modules/modules.order" 2>/dev/null; }

mod_extract() { # module -> plain .ko on stdout
	case $1 in
	*.xz) xz -dc "$1" ;;
	*.zst) zstd -dcq "$1" ;;
	*) cat "$1" ;;
	esac
}

mod_deps() {
	local f; f=$(mod_file "$1"); [ -n "$f" ] || die "module $1 not in $kdir (not built in either)"
	mod_extract "$f" > "$tmp/m.ko"
	${OBJCOPY:-objcopy} -O binary --only-section=.modinfo "$tmp/m.ko" /dev/stdout |
		tr '\0' '\n' | sed -n 's/^depends=//p' | tr ',' ' '
}

# Depth-first: dependencies before the module (netfs, 9pnet, 9pnet_virtio, 9p).
# A module built into the kernel is left out: there is nothing to load.
declare -A seen
order=()
visit() {
	local m=$1 d
	[ -n "${seen[$m]:-}" ] && return
	seen[$m]=1
	mod_builtin "$m" && return
	for d in $(mod_deps "$m"); do visit "$d"; done
	order+=("$m")
}
