#!/usr/bin/env bash
# The arm64 build (make cross: make ARCH=arm64 into $OUTPUT/arm64) on this
# x86-64 machine: static aarch64 files, and the binary, run by qemu-user, giving
# the x86-64 binary's answers and refusals from the same files.
set -u
. "$(dirname "$0")/tap.sh"
X=$OUTPUT/ksymattach
A=$OUTPUT/arm64/ksymattach
D=${KSYM_DATA:-$OUTPUT/data}/6.12
QEMU=qemu-aarch64-static

if [ "$(uname -m)" != x86_64 ]; then
	ok "arm64 cross build # SKIP the host is $(uname -m), not x86-64"
	echo "1..$n"; exit 0
fi
if ! command -v $QEMU > /dev/null; then
	nok "$QEMU missing (make deps installs qemu-user-static)"
	echo "1..$n"; exit 1
fi

# static aarch64 executables, and a library of aarch64 objects
for f in "$A" "$OUTPUT/arm64/examples/agent"; do
	h=$(readelf -h "$f" 2>&1); hrc=$?
	if [ $hrc -eq 0 ] && grep -q 'Machine: *AArch64' <<< "$h" &&
	   ! readelf -l "$f" 2>/dev/null | grep -q INTERP; then
		ok "${f#$OUTPUT/} is a static aarch64 executable"
	else
		nok "${f#$OUTPUT/}: readelf rc $hrc, $(grep -m1 Machine <<< "$h")"
	fi
done
m=$(readelf -h "$OUTPUT/arm64/libksym.a" 2>/dev/null | sed -n 's/^ *Machine: *//p' | sort -u)
is "$m" AArch64 "libksym.a for arm64 holds aarch64 objects only"

# the same answers as the x86-64 binary, from the same files
is "$($QEMU "$A" --version 2>&1)" "$("$X" --version 2>&1)" "--version"
# run_both MIN NAME ARGS...: both binaries succeed and print the same lines, MIN or more
run_both() {
	local min=$1 name=$2; shift 2
	"$X" "$@" > "$tmp/$name.x86" 2> "$tmp/$name.x86.err"; xrc=$?
	$QEMU "$A" "$@" > "$tmp/$name.arm64" 2> "$tmp/$name.arm64.err"; arc=$?
	# (the phases' times differ from run to run)
	sed -i 's/"phases_us":{[^}]*}//' "$tmp/$name.x86" "$tmp/$name.arm64"
	lines=$(wc -l < "$tmp/$name.x86")
	if [ $xrc -ne 0 ] || [ $arc -ne 0 ]; then
		nok "$name: rc $xrc on x86-64, $arc on arm64: $(head -c 200 "$tmp/$name.arm64.err")"
	elif [ "$lines" -lt "$min" ]; then
		nok "$name: the x86-64 binary printed $lines lines"
	elif cmp -s "$tmp/$name.x86" "$tmp/$name.arm64"; then
		ok "$name: the x86-64 binary's $lines lines"
	else
		nok "$name: $(diff "$tmp/$name.x86" "$tmp/$name.arm64" | head -n 4 | tr '\n' ' ')"
	fi
}
run_both 10 "list vfs_* from available_filter_functions_addrs" \
	-l -p 'vfs_*' --funcs-addrs "$D/available_filter_functions_addrs"
run_both 10 "list vfs_* from available_filter_functions joined with kallsyms" \
	-l -p 'vfs_*' --funcs "$D/available_filter_functions" --kallsyms "$D/kallsyms"
run_both 3 "sym vfs_read ksys_read" sym --kallsyms "$D/kallsyms" vfs_read ksys_read
run_both 1 "list as JSON" -l -o json -p 'vfs_r*' -p 'ksys_*' \
	--funcs-addrs "$D/available_filter_functions_addrs"

# a source that reads the kernel text, given no live kernel: refused in the
# x86-64 binary's one line (the text check itself runs in the arm64 guest)
"$X" -l -p 'vfs_read' --kallsyms "$D/kallsyms" --source kmem > /dev/null 2> "$tmp/text.x86"
xrc=$?
$QEMU "$A" -l -p 'vfs_read' --kallsyms "$D/kallsyms" --source kmem > /dev/null 2> "$tmp/text.err"
rc=$?
if [ $rc -ne 0 ] && [ $xrc -eq $rc ] && [ "$(wc -l < "$tmp/text.err")" -eq 1 ] &&
   cmp -s "$tmp/text.x86" "$tmp/text.err"; then
	ok "arm64: --source kmem without the live kallsyms is refused as on x86-64 (rc $rc): $(cat "$tmp/text.err")"
else
	nok "arm64 --source kmem: rc $rc against $xrc, $(head -c 200 "$tmp/text.err")"
fi
echo "1..$n"
