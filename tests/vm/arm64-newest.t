#!/bin/sh
# The arm64 build (make cross, in $OUTPUT/arm64) in Debian's newest arm64 kernel,
# booted under qemu-system-aarch64: the guest suite's parts that arm64 can show
# wrong (the caches, every source against tracefs, kprobe.multi and session
# attached and counted, the whole kernel, bpftool naming the links, the watcher
# of other processes with its BPF side built for arm64, what the kernel has);
# the others (faults, signals, errors, the iterator, lockdown, the
# example agent, which arm64-build-cache.t runs on arm64) are the same code on
# both and run on x86-64.
# PARTS= runs them all.
if [ "$(uname -m)" != x86_64 ]; then
	echo "ok 1 - arm64 guest # SKIP the host is $(uname -m): no cross build to boot"
	echo "1..1"; exit 0
fi
ARCH=arm64 PARTS=${PARTS-lookup.sh sources.sh multi.sh attach.sh bpftool.sh watch.sh tmulti.sh features.sh} exec "$(dirname "$0")/suite.sh" newest full
