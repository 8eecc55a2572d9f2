#!/usr/bin/env bash
# bench.sh [SERIES]: the attach-stall comparison in the guest (default 6.12):
# vfs_* in one kprobe.multi link, then 50 functions with a kprobe.session link
# each, every resolver in turn (--compare). Prints the guest's tables.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
OUTPUT=${OUTPUT:-$top/build}
case $OUTPUT in /*) ;; *) OUTPUT=$top/$OUTPUT ;; esac
series=${1:-6.12}
share=$(mktemp -d); trap 'rm -rf "$share"' EXIT
mkdir -p "$share/bin"; cp "$OUTPUT/ksymattach" "$share/bin/"
cat > "$share/job" <<'JOB'
K=./bin/ksymattach
echo "### vfs_*, one link, kprobe.multi"
$K -p 'vfs_*' --compare --rounds 5
P=$(awk '$2 ~ /^vfs_/ && !seen[$2]++ {printf "-p %s ", $2}' \
	/sys/kernel/tracing/available_filter_functions_addrs | cut -d' ' -f1-100)
echo "### 50 functions, a kprobe.session link each"
$K $P --link-per-func -m session --compare --rounds 3
JOB
"$here/vm.sh" run "$series" "$share" "${VM_TIMEOUT:-1500}"
grep -v '^# vm-done' "$share/out/log"
