#!/usr/bin/env bash
# foreign.sh ARCH COMMAND [ARG...]: run COMMAND as root where ARCH's programs run
# under qemu-user-static, so that mmdebstrap and chroot can build and configure a
# root filesystem of another architecture (rootfs.sh, sysboot.sh).
# foreign.sh --check ARCH: say in one line why this machine cannot, and fail.
#
# COMMAND runs in a new user and mount namespace with a binfmt_misc instance of its
# own (Linux 6.7 and later give one to each user namespace), where ARCH's handler is
# registered from Debian's own binfmt.d line. The handler goes with the namespace:
# the host's binfmt_misc, its dpkg architectures and /etc/apt are never touched. The
# namespace maps every uid and gid to itself, so files keep their real owners and
# root in it can do what mmdebstrap's root mode and chroot need. ARCH: arm64.
set -euo pipefail

die() { echo "foreign.sh: $*" >&2; exit 1; }

check=
[ "${1:-}" = --check ] && { check=1; shift; }
[ $# -ge 1 ] || die "usage: foreign.sh ARCH COMMAND [ARG...] | foreign.sh --check ARCH"
case $1 in
arm64) qarch=aarch64 ;;
*) die "ARCH=$1: arm64 only" ;;
esac
shift
[ -n "$check" ] || [ $# -ge 1 ] || die "no command to run"
conf=/usr/lib/binfmt.d/qemu-$qarch.conf
[ "$(id -u)" -eq 0 ] || die "needs root (a chroot in a namespace mapping every uid)"
[ -r "$conf" ] || die "$conf missing: run 'make deps' (qemu-user-static)"
command -v unshare > /dev/null || die "unshare missing (util-linux)"

# The child waits for its maps, which only the parent can write, then mounts its
# binfmt_misc on the parent's empty directory (removed here once the child ends:
# the mount goes with the child's namespace, the directory would not) and
# registers the handler (flag F: the interpreter is opened now, so a chroot needs
# no copy of it).
# shellcheck disable=SC2016 # expanded by the child's sh
child='
	while [ -z "$(cat /proc/self/uid_map)" ]; do sleep 0.05; done
	b=$1; shift
	if ! mount -t binfmt_misc binfmt_misc "$b" 2> /dev/null; then
		echo "foreign.sh: this kernel ($(uname -r)) gives a user namespace no binfmt_misc of its own (Linux 6.7 and later do): cannot run $0 programs without changing the host'"'"'s" >&2
		exit 3
	fi
	grep -v "^#" "$1" > "$b/register"
	shift
	[ $# -gt 0 ] || exit 0
	exec "$@"'
mnt=$(mktemp -d)
unshare --user --mount --propagation private -- sh -eu -c "$child" "$qarch" "$mnt" "$conf" "$@" &
pid=$!
trap 'kill $pid 2> /dev/null' INT TERM
for f in uid_map gid_map; do
	until echo "0 0 4294967295" > "/proc/$pid/$f" 2> /dev/null; do
		kill -0 $pid 2> /dev/null || break
		sleep 0.05
	done
done
set +e
wait $pid
rc=$?
set -e
rmdir "$mnt"
exit $rc
