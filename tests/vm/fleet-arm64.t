#!/bin/sh
# The fleet service on arm64 (make cross, in $OUTPUT/arm64): the arm64 package in
# trixie's arm64 root filesystem, booted with systemd on Debian's newest arm64
# kernel under qemu-system-aarch64.
if [ "$(uname -m)" != x86_64 ]; then
	echo "1..0 # SKIP the host is $(uname -m): no cross build to boot"
	exit 0
fi
ARCH=arm64 exec "$(dirname "$0")/fleet.sh" newest trixie
