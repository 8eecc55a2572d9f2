#!/usr/bin/env bash
# bench.sh [SERIES]: the attach-stall comparison in the guest (default newest):
# vfs_* in one kprobe.multi link, then 50 functions with a kprobe.session link
# each, every resolver in turn (--compare: cold, warm, a boot's first run from the
# build cache, the kernel, libbpf, the floor), the whole-table read, the example
# agent. Prints the guest's tables.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
OUTPUT=${OUTPUT:-$top/build}
case $OUTPUT in /*) ;; *) OUTPUT=$top/$OUTPUT ;; esac
series=${1:-newest}
share=$(mktemp -d); trap 'rm -rf "$share"' EXIT
mkdir -p "$share/bin"; cp "$OUTPUT/ksymattach" "$OUTPUT/examples/agent" "$OUTPUT/tests/iter_dump" "$share/bin/"
cat > "$share/job" <<'JOB'
K=./bin/ksymattach
echo "### kernel $(uname -r)"
echo "### vfs_*, one link, kprobe.multi"
$K -p 'vfs_*' --compare --rounds 5
P=$(awk '$2 ~ /^vfs_/ && !seen[$2]++ {printf "-p %s ", $2}' \
	/sys/kernel/tracing/available_filter_functions_addrs | cut -d' ' -f1-100)
echo "### 50 functions, a kprobe.session link each"
$K $P --link-per-func -m session --compare --rounds 3
# An agent linking libksym against the same agent letting libbpf resolve: cold
# (no cache: the kernel's files), a boot's first run (the build cache only) and
# warm (ksymattach's /run cache), alternated.
# The whole text table, as the first run reads it after attaching to fill the
# cache: from the kernel's table in its memory (the default), through the ksym
# iterator, then /proc/kallsyms, alternated.
echo "### the whole text table: kmem and the ksym iterator against /proc/kallsyms"
for i in 1 2 3 4 5; do
	./bin/iter_dump -T -m -t; ./bin/iter_dump -T -t; ./bin/iter_dump -T -k -t
done 2>&1
echo "### examples/agent: vfs_*, libksym vs libbpf's own resolution"
for i in 1 2 3; do
	rm -rf /run/ksymattach /var/cache/ksymattach
	./bin/agent 'vfs_*' | sed -n 's/^agent: libksym/agent: libksym-cold/p'
	rm -rf /run/ksymattach
	./bin/agent 'vfs_*' | sed -n 's/^agent: libksym/agent: libksym-boot/p'
	./bin/agent 'vfs_*' | sed -n 's/^agent: libksym/agent: libksym-warm/p'
	./bin/agent -L 'vfs_*' | grep 'libbpf:'
done
JOB
"$here/vm.sh" run "$series" "$share" "${VM_TIMEOUT:-1500}"
grep -v '^# vm-done' "$share/out/log"
