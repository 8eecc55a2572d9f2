#!/bin/sh
# The arm64 build (make cross, in $OUTPUT/arm64) in Debian's arm64 6.12, which
# has no fprobe: the fallback suite's parts that arm64 can show wrong (every
# source against tracefs, classic kprobes by address and by name, what the kernel
# has), as tests/vm/arm64-newest.t chooses them; the caches' lookups are
# arm64-newest.t's.
if [ "$(uname -m)" != x86_64 ]; then
	echo "ok 1 - arm64 guest # SKIP the host is $(uname -m): no cross build to boot"
	echo "1..1"; exit 0
fi
ARCH=arm64 PARTS=${PARTS-sources.sh old.sh features.sh} exec "$(dirname "$0")/suite.sh" 6.12 fallback
