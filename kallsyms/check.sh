#!/usr/bin/env bash
# check.sh: the kernel's kallsyms code, patched or not, run on the host (TAP).
#
# For each variant of ./variants: its patches pass checkpatch.pl --strict,
# apply to the kernel source, and build one by one; then the real, patched
# scripts/kallsyms writes its tables from each symbol list, the kernel's own
# kernel/kallsyms.c (compiled against shim/, with ASan and UBSan) is linked
# with them, and check.c asks it for every symbol and compares it with
# kmodel/, answers and bytes.
#
# check.sh bench [ROUNDS]: the same programs built without sanitizers, timing
# the kernel's lookups beside the model's on the host CPU (10,000 lookups of
# each kind a round; medians of ROUNDS, default 5, the variants alternated
# round by round). A table, not TAP. Each variant's answers are checked first
# (as in check mode, without sanitizers): a variant that answers wrong is
# named and not timed.
#
# check.sh sweep [ROUNDS]: bench for ./variants and ./sweep's variants too:
# each patch's step and the densities around each layout's.
#
# Environment: OUTPUT (build), SRC (the kernel source parts pkgcache
# linux-src unpacks; $OUTPUT/linux-src), LISTS (kallsyms-format symbol lists;
# the guests' captured ones).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
OUTPUT=${OUTPUT:-$top/build}
SRC=${SRC:-$OUTPUT/linux-src}
LISTS=${LISTS:-$(ls "$OUTPUT"/data/*/kallsyms)}
W=$OUTPUT/kallsyms
CC=${CC:-gcc}
SAN="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all"
LIB=$OUTPUT/libksym-asan.a
mode=check rounds=0 files=$here/variants
case ${1:-} in
bench | sweep)
	[ "$1" = sweep ] && files="$files $here/sweep"
	mode=bench rounds=${2:-5}
	W=$OUTPUT/kallsyms-bench SAN="-O2" LIB=$OUTPUT/libksym.a
	;;
esac
. "$here/variants.sh"
# scripts/kallsyms as Kbuild builds host programs
HOSTCFLAGS="-Wall -Wmissing-prototypes -Wstrict-prototypes -O2 -fomit-frame-pointer -std=gnu11"
FILES="kernel/kallsyms.c kernel/kallsyms_internal.h scripts/kallsyms.c scripts/include"

n=0 failed=0
tap() {	# STATUS DESCRIPTION: one TAP line, numbered here
	n=$((n + 1))
	[ "$1" = 0 ] || failed=1
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}
# a line of the checker's own TAP, renumbered into ours
relay() {
	local line
	while IFS= read -r line; do
		case $line in
		"ok "*) tap 0 "${line#ok * - }" ;;
		"not ok "*) tap 1 "${line#not ok * - }" ;;
		*) echo "# $line" ;;
		esac
	done
}

[ -f "$SRC/kernel/kallsyms.c" ] || { echo "check.sh: no kernel source in $SRC" >&2; exit 1; }
rm -rf "$W"; mkdir -p "$W/lists"
: > "$W/runs"

[ $mode = bench ] || for p in "$here"/patches/*.patch; do
	st=0; out=$(perl "$SRC/scripts/checkpatch.pl" --strict --no-tree -q "$p" 2>&1) || st=1
	tap $st "checkpatch --strict: ${p##*/}"
	[ $st = 0 ] || echo "$out" | sed 's/^/# /'
done

# The lists as scripts/kallsyms reads them: vmlinux's symbols (no [module]),
# less the per-CPU ones of kernels whose per-CPU area is zero-based: their
# offsets from _text do not fit the table's 32 bits.
for l in $LISTS; do
	name=$(basename "$(dirname "$l")")
	python3 - "$l" "$W/lists/$name" <<'PY'
import sys
lines = [l.split() for l in open(sys.argv[1])]
lines = [l for l in lines if len(l) == 3]
text = next(int(l[0], 16) for l in lines if l[2] == "_text")
with open(sys.argv[2], "w") as out:
    for l in lines:
        if -2**31 <= int(l[0], 16) - text < 2**31:
            out.write(" ".join(l) + "\n")
PY
done

$CC $SAN -Wall -Werror -std=gnu11 -D_GNU_SOURCE -I"$top/lib/ksym/include" -I"$top/kmodel" \
	-I"$top/src/common" -c "$here/check.c" -o "$W/check.o"
$CC $SAN -Wall -Werror -std=gnu11 -D_GNU_SOURCE -I"$top/lib/ksym/include" \
	-c "$top/kmodel/kmodel.c" -o "$W/kmodel.o"

while read -r v patches constants layout; do
	d=$W/$v
	mkdir -p "$d/src"
	(cd "$SRC" && cp -r --parents $FILES "$d/src/")
	# each patch applies, and the tree builds, one by one
	st=0
	for p in ${patches//[,-]/ }; do
		if ! patch -s -p1 -d "$d/src" < "$here"/patches/"$p"-*.patch > "$d/patch.log" 2>&1; then
			echo "# $v: patch $p does not apply to $(cat "$SRC/.version" 2>/dev/null)"
			st=1; break
		fi
		if ! $CC -O2 -Wall -Werror -I"$here/shim" -c "$d/src/kernel/kallsyms.c" -o "$d/step.o" ||
		   ! $CC $HOSTCFLAGS -I"$d/src/scripts/include" "$d/src/scripts/kallsyms.c" -o "$d/kallsyms"; then
			echo "# $v: the tree does not build with patch $p"
			st=1; break
		fi
	done
	tap $st "$v: its patches apply and build one by one"
	[ $st = 0 ] || continue
	if [ "$constants" != - ]; then
		st=0; set_constants "$d/src" "$constants" || st=1
		tap $st "$v: its constants set ($constants)"
		[ $st = 0 ] || continue
		rm -f "$d/kallsyms"
	fi
	# (the last step built it, where no constant changed since)
	[ -x "$d/kallsyms" ] ||
		$CC $HOSTCFLAGS -I"$d/src/scripts/include" "$d/src/scripts/kallsyms.c" -o "$d/kallsyms"
	$CC $SAN -Wall -Werror -I"$here/shim" -c "$d/src/kernel/kallsyms.c" -o "$d/kernel.o"
	for l in "$W"/lists/*; do
		name=${l##*/}
		if ! "$d/kallsyms" --all-symbols --pc-relative "$l" > "$d/$name.S" 2> "$d/$name.err"; then
			tap 1 "$v/$name: scripts/kallsyms writes the tables: $(tail -n1 "$d/$name.err")"
			continue
		fi
		$CC -c -Wa,--noexecstack "$d/$name.S" -o "$d/$name.o"
		$CC $SAN "$W/check.o" "$W/kmodel.o" "$d/kernel.o" "$d/$name.o" \
			"$LIB" -lelf -pthread -o "$d/check-$name"
		st=0
		# shellcheck disable=SC2086
		"$d/check-$name" $layout "$l" "$v/$name" > "$d/$name.tap" 2> "$d/$name.log" || st=$?
		if [ $mode = bench ]; then
			# (timed only where every answer was right)
			if [ $st = 0 ]; then
				echo "$v $name $layout" >> "$W/runs"
			else
				echo "check.sh: $v/$name answers wrong, not timed:" \
					"$(grep -m1 '^not ok' "$d/$name.tap" "$d/$name.log" || tail -n1 "$d/$name.log")" >&2
				failed=1
			fi
			continue
		fi
		relay < "$d/$name.tap"
		sed 's/^/# /' "$d/$name.log"
		# (1: a check failed, said above; anything else: it did not end)
		[ $st -le 1 ] && st=0
		tap $st "$v/$name: the checker ran to its end"
	done
done < <(variant_lines $files)
if [ $mode = check ]; then
	echo "1..$n"
	exit 0
fi

# Round by round, every variant of a list in turn; then the medians of rounds.
for r in $(seq "$rounds"); do
	while read -r v name layout; do
		# shellcheck disable=SC2086
		"$W/$v/check-$name" $layout --bench "$W/lists/$name" "$v $name"
	done < "$W/runs"
done > "$W/rounds"
echo "the kernel's kallsyms code (kernel) and kmodel/ (model) on the host CPU: ns a lookup,"
echo "medians of $rounds rounds of 10,000; index: the bytes of the markers, sub-markers and"
echo "top tree; added: those beyond the baseline's markers"
printf '%-12s %-6s %9s %9s %9s %9s %9s %9s %9s %9s\n' variant list "hit" "model" "miss" "model" \
	"addr" "model" index added
# each list, its variants in the files' order: the median of each column over
# the rounds, and the index bytes beyond the baseline's
awk '
function med(k, c, n,   a, i, j, t) {
	for (i = 1; i <= n; i++) a[i] = col[k, c, i]
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return a[int((n + 1) / 2)]
}
{
	if (!($2 in vseen)) { vseen[$2] = 1; vs[++nv] = $2 }
	if (!($3 in lseen)) { lseen[$3] = 1; ls[++nl] = $3 }
	k = $2 SUBSEP $3
	n = ++cnt[k]; bytes[k] = $10
	for (c = 4; c <= 9; c++) col[k, c, n] = $c
}
END {
	for (i = 1; i <= nl; i++) for (j = 1; j <= nv; j++) {
		k = vs[j] SUBSEP ls[i]
		if (!(k in cnt)) continue
		printf "%-12s %-6s", vs[j], ls[i]
		for (c = 4; c <= 9; c++) printf " %9d", med(k, c, cnt[k])
		base = ("baseline" SUBSEP ls[i]) in bytes ? bytes["baseline", ls[i]] : 0
		printf " %9d %9d\n", bytes[k], bytes[k] - base
	}
}' "$W/rounds"
exit $failed
