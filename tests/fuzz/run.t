#!/usr/bin/env bash
# Each fuzz target for a bounded time (FUZZ_SECONDS, default 3: make check keeps under 15 minutes) on a copy of
# its seed corpus; a crash, leak or broken invariant fails its test.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
OUTPUT=${OUTPUT:-$top/build}
secs=${FUZZ_SECONDS:-3}
targets=(kallsyms funcs funcs_addrs blacklist system_map cache build iter modlive kmem btf glob config)
echo "1..${#targets[@]}"
n=0
for t in "${targets[@]}"; do
	n=$((n + 1))
	bin=$OUTPUT/fuzz/fuzz_$t
	work=$OUTPUT/fuzz/corpus-$t
	rm -rf "$work"; mkdir -p "$work"
	cp "$here/corpus/$t"/* "$work/" 2>/dev/null
	if [ ! -x "$bin" ]; then
		echo "not ok $n - fuzz_$t: not built"
		continue
	fi
	if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$OUTPUT/fuzz/crash-$t-" "$work" > "$OUTPUT/fuzz/$t.log" 2>&1; then
		runs=$(grep -o 'Done [0-9]* runs' "$OUTPUT/fuzz/$t.log" | tail -n1)
		echo "ok $n - fuzz_$t: ${runs:-done} in ${secs}s"
	else
		echo "not ok $n - fuzz_$t: see $OUTPUT/fuzz/$t.log"
		grep -m3 -E 'ERROR|SUMMARY|deadly' "$OUTPUT/fuzz/$t.log" | sed 's/^/# /'
	fi
done
