#!/usr/bin/env bash
# suite.sh SERIES KIND: the VM test suite for one kernel, as TAP for prove. Boots
# the guest once with the static binary and the guest tests in a 9p share. KIND:
# full (kprobe.multi and kprobe.session) or fallback (classic kprobes only).
# ARCH=arm64: the arm64 build (make cross, in $OUTPUT/arm64) in Debian's arm64
# kernel of the series, named arm64-SERIES in the kernel table. PARTS: the guest
# parts to run (tests/vm/guest/run.sh), where not all.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
OUTPUT=${OUTPUT:-$top/build}
case $OUTPUT in /*) ;; *) OUTPUT=$top/$OUTPUT ;; esac
series=$1 kind=$2
case ${ARCH:-x86} in
arm64) build=$OUTPUT/arm64 name=arm64-$series ;;
*) build=$OUTPUT name=$series ;;
esac
share=$OUTPUT/vm-share/$name
rm -rf "$share"; mkdir -p "$share/bin" "$share/out"
cp "$build/ksymattach" "$share/bin/" ||
	{ echo "not ok 1 - $build/ksymattach missing (make, make cross)"; echo "1..1"; exit 1; }
# the example agent: a missing one fails its guest tests, not the whole suite
cp "$build/examples/agent" "$share/bin/" 2>/dev/null
cp "$build/tests/iter_dump" "$share/bin/" 2>/dev/null
cp -r "$here/guest" "$share/tests"
# Debian's bpftrace for the watch part, in the newest kernel's x86-64 guest: the
# root filesystem the bench builds (built once, cached; a failure is the watch
# part's failure, said there)
if [ "$series" = newest ] && [ "$build" = "$OUTPUT" ]; then
	if rootfs=$("$here/rootfs.sh" build trixie bpftrace 2> "$share/out/rootfs.log"); then
		zstd -dcq "$rootfs" > "$share/bt.tar" || rm -f "$share/bt.tar"
	fi
	[ -f "$share/bt.tar" ] || echo "bpftrace root filesystem: $(tail -n1 "$share/out/rootfs.log")" \
		> "$share/out/bt-missing"
fi
echo "sh /host/tests/run.sh $series $kind ${PARTS:-}" > "$share/job"
err=$("$here/vm.sh" run "$series" "$share" "${VM_TIMEOUT:-1500}" 2>&1)
rc=$?
# what the guest said, even when it did not finish: where a hang or crash came
n=0
while IFS= read -r line || [ -n "$line" ]; do
	case $line in
	"ok - "*) n=$((n + 1)); echo "ok $n ${line#ok }" ;;
	"not ok - "*) n=$((n + 1)); echo "not ok $n ${line#not ok }" ;;
	"#"*) echo "$line" ;;
	*) echo "# $line" ;;
	esac
done 2>/dev/null < "$share/out/log"
if [ $rc -ne 0 ]; then
	last=$(grep -E '^(not )?ok - ' "$share/out/log" 2>/dev/null | tail -n1 | sed 's/^[a-z ]*- //')
	n=$((n + 1))
	# (vm.sh's notes on the initramfs and pkgcache's progress come first; the
	# verdict, vm.sh's or pkgcache's, last)
	why=$(echo "$err" | grep -E '^(vm\.sh|pkgcache): ' | grep -Ev '^pkgcache: (fetching|downloading) ' |
		tail -n1 || true)
	[ -n "$why" ] || why=$(echo "$err" | head -n1)
	[ -n "$why" ] || why="guest $name: the VM failed without a word (rc $rc)"
	echo "not ok $n - ${why#vm.sh: }${last:+ (the last test done: $last)}"
	echo "1..$n"
	exit 1
fi
# a part that stopped early (exit, a shell error) took the parts after it along
if ! grep -q '^# guest suite: done$' "$share/out/log"; then
	last=$(grep -E '^(not )?ok - ' "$share/out/log" | tail -n1 | sed 's/^[a-z ]*- //')
	n=$((n + 1))
	echo "not ok $n - guest $name: the suite stopped before its end${last:+ (the last test done: $last)}"
	echo "1..$n"
	exit 1
fi
# what the kernel offered, kept for scripts/kernel-table, and the README's row
# for it held against this run
if [ -s "$share/out/features" ]; then
	mkdir -p "$OUTPUT/kernels"
	cp "$share/out/features" "$OUTPUT/kernels/$name.features"
	n=$((n + 1))
	if err=$(OUTPUT=$OUTPUT "$top/scripts/kernel-table" --check "$name" "$top/README.md" 2>&1); then
		echo "ok $n - the README's kernel table says what this run found on $name"
	else
		echo "not ok $n - $err"
	fi
else
	n=$((n + 1))
	echo "not ok $n - the guest wrote no features file: the README's kernel table is unchecked"
fi
echo "1..$n"
