#!/usr/bin/env bash
# rootfs.sh: a Debian root filesystem with systemd as PID 1 (bookworm or trixie), for
# the tests that boot a real system (tests/vm/sysboot.sh turns it into a disk image).
#
#   rootfs.sh build [SUITE [PACKAGE...]]  build the tarball once, or reuse it; prints its path
#   rootfs.sh path [SUITE [PACKAGE...]]   print the path the current recipe's tarball has
#                                         (built or not)
#
# SUITE is bookworm (Debian 12, the default) or trixie (Debian 13). PACKAGEs are
# installed on top of the usual set (bench.sh: bpftrace) into a tarball of their own,
# named SUITE+PACKAGE...; without them the tarball and its key are the usual ones. Built by
# mmdebstrap from Debian's archive (KSYM_MIRROR, KSYM_SECURITY_MIRROR, as in
# scripts/pkgcache): SUITE, SUITE-updates and SUITE-security, trusting only
# debian-archive-keyring; neither /etc/apt nor the host's dpkg is used or changed.
# Cached as $KSYM_CACHE/rootfs/SUITE-<hash>.tar.zst, the hash taken over the recipe
# (suite, variant, packages, RECIPE): an unchanged recipe is reused offline, a
# changed one builds anew. The tarball is the archive as it was when built, security
# updates included; KSYM_REFRESH=1 (as for pkgcache) builds it again. Only generic
# content goes here; what a test VM needs (units, fstab, hostname, modules) is added
# per image by sysboot.sh, so changing that does not rebuild this. Root only
# (mmdebstrap's root mode: a chroot, no loop mounts).
# ARCH=arm64 builds an arm64 root filesystem (SUITE-arm64-<hash>.tar.zst): mmdebstrap
# runs under foreign.sh, whose namespace runs arm64's maintainer scripts under
# qemu-user-static without changing the host's binfmt_misc or dpkg architectures.
set -euo pipefail

# Bump when the build below changes what lands in the tarball.
RECIPE=2
VARIANT=minbase
# systemd-sysv: /sbin/init; udev: device units (fstab, modules for devices); dbus:
# logind and node_exporter's systemd collector; curl: /metrics from inside the guest;
# bpftool: which links are attached; bash-completion: the completion test. The same
# names in both suites.
PACKAGES=(systemd-sysv udev dbus kmod procps iproute2 curl bpftool prometheus-node-exporter
	bash-completion)
SUITES="bookworm trixie"

CACHE=${KSYM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ksymattach}
MIRROR=${KSYM_MIRROR:-http://deb.debian.org/debian}
SECMIRROR=${KSYM_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

die() { echo "rootfs.sh: $*" >&2; exit 1; }

here=$(cd "$(dirname "$0")" && pwd)
case ${ARCH:-x86} in
x86) debarch='' run=() ;;
arm64) debarch=arm64 run=("$here/foreign.sh" arm64) ;;
*) die "ARCH=$ARCH: x86 or arm64" ;;
esac

# The mirror is not part of the key: any mirror serves the same suite. The extras
# come last and only when given, so the plain tarballs keep their keys; so does
# a foreign architecture.
key() {
	printf '%s\n' "$RECIPE" "$SUITE" "$VARIANT" "${PACKAGES[@]}" ${EXTRA[@]+"${EXTRA[@]}"} \
		${debarch:+"arch=$debarch"} | sha256sum | cut -c1-16
}
path() {
	local name=$SUITE${debarch:+-$debarch}
	[ ${#EXTRA[@]} -eq 0 ] || name=$SUITE+$(IFS=+; echo "${EXTRA[*]}")
	echo "$CACHE/rootfs/$name-$(key).tar.zst"
}

build() {
	local out tmp start pkgs=("${PACKAGES[@]}" ${EXTRA[@]+"${EXTRA[@]}"})
	out=$(path)
	# KSYM_REFRESH (as in pkgcache): build anew, with the archive's current updates.
	[ -f "$out" ] && [ -z "${KSYM_REFRESH:-}" ] && { echo "$out"; return; }
	[ "$(id -u)" -eq 0 ] || die "building the root filesystem needs root (mmdebstrap root mode)"
	command -v mmdebstrap >/dev/null || die "mmdebstrap missing: run 'make deps'"
	# (foreign.sh says why it cannot)
	[ -z "$debarch" ] || "${run[@]}" true || exit 1
	mkdir -p "$CACHE/rootfs"
	# One builder at a time, whatever the suite (the fleet tests may start
	# together; two mmdebstraps would share two cores); whoever waited for the same
	# suite finds the tarball done.
	exec 9> "$CACHE/rootfs/.lock"
	flock 9
	[ -f "$out" ] && [ -z "${KSYM_REFRESH:-}" ] && { echo "$out"; return; }
	# Leftovers of a killed build: never renamed, so never used; just space.
	rm -f "$CACHE"/rootfs/.build-*
	# mmdebstrap picks the format from the name, hence the .tar.zst on the temp file.
	tmp=$CACHE/rootfs/.build-$$.tar.zst
	trap 'rm -f "$tmp"' EXIT
	start=$(date +%s)
	echo "rootfs.sh: building $out (mmdebstrap, a few minutes)" >&2
	# The docs are left out of the rootfs's own packages only: the customize hook
	# drops the exclusions, so a .deb a test installs is installed whole.
	# shellcheck disable=SC2016 # $1 is the hook's, expanded by mmdebstrap's sh
	# (--skip=check/qemu: foreign.sh runs the programs; mmdebstrap's own check
	# would want arch-test and the host's binfmt_misc)
	${run[@]+"${run[@]}"} mmdebstrap --quiet --variant="$VARIANT" --mode=root --keyring="$KEYRING" \
		${debarch:+--arch="$debarch" --skip=check/qemu} \
		--include="$(IFS=,; echo "${pkgs[*]}")" \
		--aptopt='Acquire::Languages "none"' \
		--dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--dpkgopt='path-exclude=/usr/share/info/*' \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-include=/usr/share/doc/*/copyright' \
		--customize-hook='rm -f "$1/etc/dpkg/dpkg.cfg.d/99mmdebstrap"' \
		"$SUITE" "$tmp" \
		"deb $MIRROR $SUITE main" \
		"deb $MIRROR $SUITE-updates main" \
		"deb $SECMIRROR $SUITE-security main" >&2 ||
		die "mmdebstrap failed"
	# A truncated archive must not become the cache.
	zstd -tq "$tmp" || die "$tmp is corrupt"
	mv "$tmp" "$out"
	trap - EXIT
	echo "rootfs.sh: built in $(($(date +%s) - start))s, $(du -h "$out" | cut -f1)" >&2
	echo "$out"
}

usage="usage: rootfs.sh build|path [SUITE [PACKAGE...]] (SUITE: ${SUITES// /, }; bookworm by default)"
[ $# -ge 1 ] || die "$usage"
SUITE=${2:-bookworm}
case " $SUITES " in *" $SUITE "*) ;; *) die "unknown suite '$SUITE'; $usage" ;; esac
# Sorted and unique: the same set is the same tarball whatever the order given.
EXTRA=()
if [ $# -gt 2 ]; then
	for p in "${@:3}"; do
		[[ $p =~ ^[a-z0-9][a-z0-9+.-]+$ ]] || die "'$p' is not a Debian package name"
	done
	mapfile -t EXTRA < <(printf '%s\n' "${@:3}" | sort -u)
fi
case $1 in
build) build ;;
path) path ;;
*) die "$usage" ;;
esac
