#!/usr/bin/env bash
# The kernel's own kallsyms code on the host: kallsyms/check.sh (the patches
# pass checkpatch, apply and build one by one; each variant's scripts/kallsyms
# writes the tables of every captured symbol list, and kernel/kallsyms.c,
# linked with them, finds every symbol by name and by address, as kmodel/ does
# from the same bytes).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
OUTPUT=${OUTPUT:-$top/build}
# make check builds these; run alone, the test has make do it (a no-op once made)
if ! make -s -C "$top" OUTPUT="$OUTPUT" kallsyms-deps > "$OUTPUT/kallsyms-make.log" 2>&1; then
	echo "not ok 1 - make kallsyms-deps: $(tail -n1 "$OUTPUT/kallsyms-make.log")"
	echo "1..1"; exit 1
fi
exec "$top/kallsyms/check.sh"
