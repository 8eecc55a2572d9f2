#!/usr/bin/env bash
# bench.sh [SERIES [bpftrace]]: the attach-stall comparison in the guest (default
# newest): vfs_* in one kprobe.multi link, then 50 functions with a kprobe.session
# link each, every resolver in turn (--compare: cold, warm, a boot's first run from
# the build cache, the kernel, libbpf, the floor), a cold run's cache phase against
# its stall, the whole-table read, the example agent, the scale sweep from 100
# functions to the whole kernel (bench-sweep.sh), then Debian's bpftrace against
# ksymattach cold and warm (bench-bpftrace.sh), what `ksymattach watch`
# costs the agents it watches (bench-watch.sh), and the cost per traced call: a
# tight loop of read(2) with the functions it goes through attached by
# kprobe.multi, fentry.multi, kprobe.session and fsession.multi against none
# (bench-percall.sh, tests/vm/tools/syscall_loop.c; in the second guest, whose clock
# counts instructions). Prints the guest's tables.
# "bpftrace", "watch" or "percall" runs only that part. ARCH=arm64 (make bench-vm ARCH=arm64): the
# arm64 build in Debian's arm64 kernel, bpftrace from trixie's arm64 packages.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
OUTPUT=${OUTPUT:-$top/build}
case $OUTPUT in /*) ;; *) OUTPUT=$top/$OUTPUT ;; esac
series=${1:-newest}
only=${2:-}
case $only in '' | bpftrace | watch | percall) ;;
*) echo "usage: bench.sh [SERIES [bpftrace|watch|percall]]" >&2; exit 1 ;;
esac
share=$(mktemp -d); trap 'rm -rf "$share"' EXIT
cp "$here/bench-sweep.sh" "$here/bench-watch.sh" "$here/bench-percall.sh" "$share/"
mkdir -p "$share/bin"; cp "$OUTPUT/ksymattach" "$OUTPUT/examples/agent" "$OUTPUT/tests/iter_dump" \
	"$OUTPUT/tests/syscall_loop" "$share/bin/"
# bpftrace as a fleet has it: trixie's, in trixie's root filesystem of the guest's
# architecture (built once by mmdebstrap, root only; rootfs.sh reads ARCH), handed
# over as a plain tar: busybox has no zstd
timeout=${VM_TIMEOUT:-3600}
if [ "$only" = watch ] || [ "$only" = percall ]; then
	:	# no bpftrace
elif rootfs=$("$here/rootfs.sh" build trixie bpftrace 2> "$share/rootfs.log"); then
	zstd -dcq "$rootfs" > "$share/bt.tar"
	cp "$here/bench-bpftrace.sh" "$here/guest/btroot.sh" "$share/"
	timeout=$((timeout + 600))
else
	echo "bench.sh: no bpftrace rows: $(tail -n1 "$share/rootfs.log")" >&2
	[ -z "$only" ] || exit 1
fi
{
[ -n "$only" ] || cat <<'JOB'
K=./bin/ksymattach
# what the kernel has decides what runs; what it lacks is said
multi= session=
grep -q ' register_fprobe$' /proc/kallsyms && multi=1
# (the session kfuncs are built without fprobe too: arm64's 6.12 has them)
[ -n "$multi" ] && grep -q ' bpf_session_cookie$' /proc/kallsyms && session=1
echo "### kernel $(uname -r)"
echo "### vfs_*, one link, kprobe.multi (classic kprobes where the kernel has none)"
$K -p 'vfs_*' --compare --rounds 5
echo "### 50 functions, a kprobe.session link each"
if [ -n "$session" ]; then
	P=$(awk '$2 ~ /^vfs_/ && !seen[$2]++ {printf "-p %s ", $2}' \
		/sys/kernel/tracing/available_filter_functions_addrs | cut -d' ' -f1-100)
	$K $P --link-per-func -m session --compare --rounds 3
else
	echo "not on this kernel: no kprobe.session (no fprobe, or no bpf_session_cookie kfunc)"
fi
# A cold run's cache phase (after the attach, outside the stall) against its own
# stall (read, parse, index, match, load, attach), five runs without any cache.
echo "### vfs_*, cold: the cache phase against the stall"
for i in 1 2 3 4 5; do
	rm -rf /run/ksymattach /var/cache/ksymattach
	$K -p 'vfs_*' -o json 2> /dev/null | grep -o '"phases_us":{[^}]*}' | tr -d '{}"' |
		tr ',' '\n' | sed 's/phases_us://' | awk -F: -v i=$i '
		$1 == "cache" { c = $2; next } $1 == "detach" { next } { s += $2 }
		END { printf "cold run %d: stall %.1f ms, cache phase %.1f ms: %.2fx the stall\n",
			i, s / 1000, c / 1000, c / s }'
done
# The whole text table, as a whole-table run reads it: from the kernel's table in
# its memory (the default), through the ksym iterator, then /proc/kallsyms,
# alternated.
echo "### the whole text table: kmem and the ksym iterator against /proc/kallsyms"
for i in 1 2 3 4 5; do
	./bin/iter_dump -T -m -t; ./bin/iter_dump -T -t; ./bin/iter_dump -T -k -t
done 2>&1
# An agent linking libksym against the same agent letting libbpf resolve: cold
# (no cache: the kernel's files), a boot's first run (the build cache only) and
# warm (ksymattach's /run cache), alternated.
echo "### examples/agent: vfs_*, libksym vs libbpf's own resolution"
if [ -n "$multi" ]; then
	for i in 1 2 3; do
		rm -rf /run/ksymattach /var/cache/ksymattach
		./bin/agent 'vfs_*' | sed -n 's/^agent: libksym/agent: libksym-cold/p'
		rm -rf /run/ksymattach
		./bin/agent 'vfs_*' | sed -n 's/^agent: libksym/agent: libksym-boot/p'
		./bin/agent 'vfs_*' | sed -n 's/^agent: libksym/agent: libksym-warm/p'
		./bin/agent -L 'vfs_*' | grep 'libbpf:'
	done
else
	echo "not on this kernel: the agent attaches kprobe.multi, which it has not"
fi
JOB
[ -n "$only" ] || echo 'sh ./bench-sweep.sh'
# last: its chroot takes guest memory the rows above never had to share
echo 'if [ -f bt.tar ]; then sh ./bench-bpftrace.sh; fi'
} > "$share/job"
if [ -z "$only" ] || [ "$only" = bpftrace ]; then
	"$here/vm.sh" run "$series" "$share" "$timeout"
	grep -v '^# vm-done' "$share/out/log"
fi
# The watcher's cost in a guest of its own whose clock counts instructions
# (vm.sh's VM_ICOUNT): a few percent is far below the host's noise in wall time,
# and what the watcher adds to an agent is the instructions its probes run. The
# cost per traced call there too: in wall time the same run's rows varied 1.5x
# from round to round, counted in instructions by less than 1%.
if [ "$only" != bpftrace ]; then
	{
	[ "$only" = percall ] || echo 'sh ./bench-watch.sh'
	[ "$only" = watch ] || echo 'PERCALL_CLOCK=icount PERCALL_ROUNDS=3 sh ./bench-percall.sh'
	} > "$share/job"
	VM_ICOUNT=${VM_ICOUNT:-0} "$here/vm.sh" run "$series" "$share" "$timeout"
	grep -v '^# vm-done' "$share/out/log"
fi
