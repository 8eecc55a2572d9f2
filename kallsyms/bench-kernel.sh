#!/usr/bin/env bash
# bench-kernel.sh [ROUNDS [VARIANT...]]: each kallsyms variant built into a
# real kernel, booted, and measured in it (make bench-kernel). The variants
# are ./variants' three, or those named, from ./variants and ./sweep (each
# patch's step, other densities).
#
# The kernel is Debian's newest source (pkgcache linux-tree) with a small
# config: x86-64 defconfig, kvm_guest.config, KALLSYMS_ALL and
# KALLSYMS_SELFTEST. The variants differ only in the kallsyms files, so the
# first build is whole and each next one is incremental. Every variant also
# gets bench/'s patch: a benchmark in debugfs, beside the kernel's selftest.
# Each variant boots ROUNDS times (default 3), the variants alternated, under
# QEMU TCG: its times are emulated, and only the variants' ratios within one
# run mean anything. The report gives per variant the bytes of each kallsyms
# array in the built vmlinux, the selftest's verdict and lookup figures, and
# the benchmark's medians. It fails where a variant does not build or boot,
# or its selftest does not pass.
#
# Environment: KSYM_CACHE (the tree and the build are kept under
# $KSYM_CACHE/kbuild: about 4 GB), KSYM_KBUILD (that directory instead: its
# src/ and obj/ may be links to a tree and a build made before), JOBS (make
# -j, default the CPUs).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
CACHE=${KSYM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ksymattach}
rounds=${1:-3}
[ $# -gt 0 ] && shift
jobs=${JOBS:-$(nproc)}
die() { echo "bench-kernel.sh: $*" >&2; exit 1; }
. "$here/variants.sh"

# the variants named (all of ./variants' where none is), in the order given
variants=()
if [ $# -eq 0 ]; then
	set -- $(variant_lines "$here/variants" | cut -d' ' -f1)
fi
# (looked up first: a misspelt name would otherwise end the run after the
# tree's unpacking and minutes of building)
lines=()
for v; do
	line=$(variant_lines "$here/variants" "$here/sweep" | awk -v v="$v" '$1 == v')
	[ -n "$line" ] || die "$v: no such variant in variants or sweep"
	lines+=("$line")
done

rel=$("$top/scripts/pkgcache" release newest)
K=${KSYM_KBUILD:-$CACHE/kbuild/${rel%-amd64}}
tree=$K/src obj=$K/obj out=$K/out
# the files the variants change, kept as the package has them
FILES="kernel/kallsyms.c kernel/kallsyms_internal.h scripts/kallsyms.c kernel/Makefile"
if [ ! -f "$tree/.pristine/.complete" ]; then
	# (a tree given by KSYM_KBUILD is taken as the package has it)
	[ -f "$tree/Makefile" ] || "$top/scripts/pkgcache" linux-tree newest "$tree" > /dev/null
	[ -f "$tree/.version" ] || die "$tree has no .version: not a tree pkgcache unpacked"
	mkdir -p "$tree/.pristine"
	(cd "$tree" && cp --parents $FILES .pristine/)
	touch "$tree/.pristine/.complete"
fi
mkdir -p "$obj" "$out"
if [ ! -f "$obj/.config" ]; then
	make -s -C "$tree" O="$obj" x86_64_defconfig kvm_guest.config > /dev/null
	"$tree/scripts/config" --file "$obj/.config" -e KALLSYMS -e KALLSYMS_ALL -e KALLSYMS_SELFTEST
	make -s -C "$tree" O="$obj" olddefconfig > /dev/null
fi

# variant NAME PATCHES CONSTANTS: its tree, built; the image and the arrays'
# sizes kept
build() {
	local v=$1 patches=$2 constants=$3 p t0 t1
	(cd "$tree/.pristine" && cp --parents $FILES "$tree/")
	rm -f "$tree/kernel/kallsyms_bench.c"
	patch -s -p1 -d "$tree" < "$here"/bench/0001-*.patch
	for p in ${patches//[,-]/ }; do
		patch -s -p1 -d "$tree" < "$here"/patches/"$p"-*.patch ||
			die "$v: patch $p does not apply to $(cat "$tree/.version")"
	done
	set_constants "$tree" "$constants" || die "$v: its constants ($constants) cannot be set"
	t0=$(date +%s)
	make -s -C "$tree" O="$obj" -j"$jobs" bzImage > "$out/$v.build.log" 2>&1 ||
		die "$v: the kernel does not build: $(tail -n 3 "$out/$v.build.log" | tr '\n' ' ')"
	t1=$(date +%s)
	mkdir -p "$out/$v"
	cp "$obj/arch/x86/boot/bzImage" "$out/$v/bzImage"
	# each table's bytes in the built vmlinux: its .size where scripts/kallsyms
	# writes one; token_index (256 u16) and seqs_of_names (3 bytes a symbol,
	# the count from kallsyms_offsets' size) have none
	nm -S "$obj/vmlinux" | python3 -c '
import sys
tables = ("names", "markers", "sub_markers", "token_table", "offsets", "top_tree")
size = {}
for f in (l.split() for l in sys.stdin):
    if len(f) == 4 and f[3][9:] in tables and f[3].startswith("kallsyms_"):
        size[f[3]] = int(f[1], 16)
size["kallsyms_token_index"] = 512
size["kallsyms_seqs_of_names"] = size["kallsyms_offsets"] // 4 * 3
for k in sorted(size):
    print(k, size[k])
' > "$out/$v/sizes"
	echo "$v: built in $((t1 - t0)) s on $jobs CPUs" | tee "$out/$v/build-time" >&2
}

# A busybox initramfs whose init waits for the selftest, then runs the
# benchmark (alone on the CPU), prints their lines and powers off. (Made
# every run: it is small, and its init changes with this script.)
initrd=$out/initrd.cpio
if true; then
	r=$(mktemp -d)
	mkdir -p "$r/bin" "$r/proc" "$r/sys" "$r/dev"
	cp "$("$top/scripts/pkgcache" busybox amd64)" "$r/bin/busybox"
	cat > "$r/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t devtmpfs dev /dev 2> /dev/null
mount -t debugfs debugfs /sys/kernel/debug 2> /dev/null ||
	{ mount -t sysfs sys /sys; mount -t debugfs debugfs /sys/kernel/debug; }
n=0
until dmesg | grep -q 'kallsyms_selftest: \(finish\|abort\)'; do
	sleep 5; n=$((n + 5))
	[ $n -lt 5400 ] || break
done
echo "### kallsyms"
dmesg | grep -E 'kallsyms_selftest'
sed 's/^/kallsyms_bench: /' /sys/kernel/debug/kallsyms_bench
echo "### end"
poweroff -f
INIT
	chmod +x "$r/init"
	(cd "$r" && find . | cpio -o -H newc --quiet) > "$initrd"
	rm -rf "$r"
fi

boot() {	# VARIANT ROUND
	local v=$1 log=$out/$1/boot-$2.log
	timeout --kill-after=10 5700 qemu-system-x86_64 -accel tcg,thread=single -m 1024 -smp 1 \
		-nographic -no-reboot -kernel "$out/$v/bzImage" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 loglevel=4" > "$log" 2>&1 || true
	grep -q '^### end' "$log" || die "$v: the guest did not finish (see $log)"
	grep -q 'kallsyms_selftest: finish' "$log" ||
		die "$v: its kallsyms selftest did not pass (see $log)"
}

for line in "${lines[@]}"; do
	read -r v patches constants _ <<< "$line"
	variants+=("$v")
	build "$v" "$patches" "$constants"
done
for r in $(seq "$rounds"); do
	for v in "${variants[@]}"; do
		echo "boot $r of $rounds: $v" >&2
		boot "$v" "$r"
	done
done

echo "kallsyms variants built from $(cat "$tree/.version") (defconfig + KALLSYMS_ALL,"
echo "KALLSYMS_SELFTEST) and booted under QEMU TCG, $rounds boots each, alternated: times are"
echo "emulated, compare only the variants of this run"
for v in "${variants[@]}"; do
	echo "### $v ($(cat "$out/$v/build-time"))"
	echo "bytes: $(tr '\n' ' ' < "$out/$v/sizes")"
	for r in $(seq "$rounds"); do
		grep -E 'kallsyms_selftest: (finish|abort)|looked up|The time spent|traverse all|kallsyms_bench: ns' \
			"$out/$v/boot-$r.log" | sed "s/^\[ *[0-9.]*\] //; s/^/boot $r: /"
	done
done

# The medians of the boots, and each variant against the first (the baseline).
echo "### medians of $rounds boots (ns; the selftest's average lookup of every symbol,"
echo "### the benchmark's lookups of 4096 names and its whole walk)"
printf '%-9s %9s %7s %9s %7s %9s %7s %9s %7s %12s %7s\n' variant selftest /base hit /base \
	miss /base addr /base walk /base
for v in "${variants[@]}"; do
	for r in $(seq "$rounds"); do
		sed -n 's/.*The time spent on each symbol is (ns): .*avg=\([0-9]*\).*/st \1/p;
			s/.*kallsyms_bench: ns a lookup: hit \([0-9]*\) miss \([0-9]*\) addr \([0-9]*\); whole walk \([0-9]*\) ns.*/b \1 \2 \3 \4/p' \
			"$out/$v/boot-$r.log"
	done | awk -v v="$v" '
	function med(a, n,   i, j, t) {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n ? a[int((n + 1) / 2)] : 0
	}
	$1 == "st" { st[++ns] = $2 }
	$1 == "b" { nb++; h[nb] = $2; m[nb] = $3; a[nb] = $4; w[nb] = $5 }
	END { print v, med(st, ns), med(h, nb), med(m, nb), med(a, nb), med(w, nb) }'
done | awk '
NR == 1 { for (i = 2; i <= 6; i++) base[i] = $i }
{
	printf "%-9s", $1
	for (i = 2; i <= 6; i++) printf " %9d %6.2fx", $i, base[i] ? $i / base[i] : 0
	printf "\n"
}'
