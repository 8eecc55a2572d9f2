# TAP helpers for the guest (busybox sh). Numbering is done by the host driver.
ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; }
# skip DESC REASON: a test this kernel cannot run, said in TAP
skip() { echo "ok - $1 # SKIP $2"; }
# check DESC CMD...: passes when CMD succeeds, and returns as it did
check() {
	d=$1; shift
	if "$@"; then ok "$d"; return 0; fi
	not_ok "$d"
	return 1
}
# is GOT WANT DESC
is() {
	if [ "$1" = "$2" ]; then ok "$3"; else not_ok "$3 (got '$1', want '$2')"; fi
}
# ge GOT MIN DESC (integers)
ge() {
	if [ -n "$1" ] && [ "$1" -ge "$2" ] 2>/dev/null; then ok "$3"; else not_ok "$3 (got '$1', want >= $2)"; fi
}
# A JSON report's integer field, and one function's hit count.
json_int() { sed -n "s/.*\"$1\":\([0-9][0-9]*\).*/\1/p" "$2" | head -n1; }
json_hits() {
	grep -o "\"name\":\"$1\",\"addr\":\"0x[0-9a-f]*\",\"module\":[^,]*,\"hits\":[0-9]*" "$2" |
		sed 's/.*"hits"://' | head -n1
}
# kprobe.multi links now; "bpftool failed" where it cannot tell (no count of 0 then)
kprobe_multi_links() {
	_l=$(bpftool link show 2>&1) || { echo "bpftool failed: $_l" | head -n1; return; }
	echo "$_l" | grep -c kprobe_multi
}
# Classic kprobes with a program: perf-event links, or (a kernel without them,
# before 5.15) perf events given the program by ioctl
kprobes_attached() {
	_n=$(bpftool link show 2>/dev/null | grep -c perf_event)
	[ "$_n" -gt 0 ] || _n=$(bpftool perf show 2>/dev/null | grep -c kprobe)
	echo "$_n"
}
# What the kernel has, by its own word: the ksym iterator (Linux 6.0), and its
# table's place in the VMCOREINFO note kcore carries (6.0)
has_iter() { grep -q ' bpf_iter_ksym_init$' /proc/kallsyms; }
has_kmem() { head -c 65536 /proc/kcore 2>/dev/null | grep -qa 'SYMBOL(kallsyms_names)='; }
# The source a cold run reads the kernel's symbols from here
cold_source() {
	if has_kmem; then echo kmem; elif has_iter; then echo iter; else echo kallsyms; fi
}
# Every BPF link there is; "bpftool failed" where it cannot tell (no count of 0 then)
links_left() {
	_l=$(bpftool link show 2>&1) || { echo "bpftool failed: $_l" | head -n1; return; }
	echo "$_l" | grep -c '^[0-9]*:'
}
# BPF probes left: every BPF link, and the perf events holding a program by ioctl
# (classic kprobes before 5.15, which have no perf links); "bpftool failed" where
# it cannot tell
probes_left() {
	_l=$(links_left)
	case $_l in *failed*) echo "$_l"; return ;; esac
	_p=$(bpftool perf show 2>&1) || { echo "bpftool failed: $_p" | head -n1; return; }
	echo $((_l + $(echo "$_p" | grep -c kprobe)))
}
# Number of distinct traceable vfs_* functions in the guest's own list.
count_traceable() {
	if [ -e /sys/kernel/tracing/available_filter_functions_addrs ]; then
		grep "^[0-9a-f]* $1" /sys/kernel/tracing/available_filter_functions_addrs |
			awk '{ a[$1] = 1 } END { print length(a) }'
	else
		grep -c "^$1" /sys/kernel/tracing/available_filter_functions
	fi
}
# Waits up to $2 seconds for file $1 to contain $3.
wait_for() {
	i=0
	while ! grep -q "$3" "$1" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt $(($2 * 10)) ] && return 1
		sleep 0.1
	done
}
K=/host/bin/ksymattach
O=/host/out
# one_error DESC RC FILE EXPECT: a run ended RC, nonzero, its stderr FILE one line
# (warnings aside) matching EXPECT (grep); FILE shown as comments
one_error() {
	if [ "$2" -ne 0 ] && [ "$(grep -vc 'warning:' "$3")" -eq 1 ] && grep -q "$4" "$3"; then
		ok "$1 (rc $2)"
	else
		not_ok "$1 (rc $2)"
	fi
	sed 's/^/# /' "$3"
}
# one_line_error DESC EXPECT CMD...: CMD fails with one line on stderr holding EXPECT
one_line_error() { # DESC EXPECT-SUBSTRING CMD...
	d=$1 want=$2; shift 2
	"$@" > $O/err.out 2> $O/err.txt
	rc=$?
	if [ $rc -ne 0 ] && [ "$(wc -l < $O/err.txt)" -eq 1 ] && grep -q "$want" $O/err.txt; then
		ok "$d"
	else
		not_ok "$d (rc $rc, stderr: $(head -c 300 $O/err.txt))"
	fi
}
