#!/bin/sh
# The fleet service on arm64 (make cross, in $OUTPUT/arm64): the arm64 package in
# trixie's arm64 root filesystem, booted with systemd on Debian's newest arm64
# kernel under qemu-system-aarch64. One boot: what the second would add is the
# build cache across KASLR boots, which arm64-build-cache.t checks on arm64, and
# the unit's import, the stop and the purge, the same scripts fleet-trixie.t runs.
if [ "$(uname -m)" != x86_64 ]; then
	echo "1..0 # SKIP the host is $(uname -m): no cross build to boot"
	exit 0
fi
BOOTS=1 SKIP_WHY="one boot on arm64: arm64-build-cache.t rebases the build cache across boots there, fleet-trixie.t runs the second boot's scripts" \
	ARCH=arm64 exec "$(dirname "$0")/fleet.sh" newest trixie
