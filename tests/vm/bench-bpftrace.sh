# bench-bpftrace.sh: runs in the guest (busybox sh), from bench.sh's job in the share.
# The tool fleet engineers use instead: Debian's bpftrace, `kprobe:vfs_* { @[func] =
# count(); }`, against ksymattach cold and warm on the same pattern, start to
# attached, alternated rounds; then which functions each attached, as ftrace lists
# them.
#
# Both run from one chroot, trixie with bpftrace (guest/btroot.sh, from the share).
ROUNDS=${ROUNDS:-5}
PAT='vfs_*'
BT="kprobe:$PAT { @[func] = count(); }"
T=/sys/kernel/tracing
R=/bt
W=/tmp/bench-bpftrace
KSYM=/usr/local/sbin/ksymattach
mkdir -p $W $R
# Without kprobe.multi (no fprobe: 6.1) both fall back to a kprobe a function, and
# bpftrace's are no BPF links: the end point below would not be the same for both.
if ! grep -q ' register_fprobe$' /proc/kallsyms; then
	echo "### bpftrace: skipped on $(uname -r): no kprobe.multi"
	exit 0
fi

t0=$(cut -d' ' -f1 /proc/uptime)
. ./btroot.sh
bt_root $R /host/bt.tar || { echo "bench-bpftrace: cannot unpack bt.tar"; exit 1; }
cp /host/bin/ksymattach $R$KSYM
t1=$(cut -d' ' -f1 /proc/uptime)
echo "# chroot ready in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
btv=$(chroot $R /usr/bin/bpftrace --version) || { echo "bench-bpftrace: bpftrace does not run"; exit 1; }

# The kernel's clock for both tools: events kept to the started process and what
# it forks (its threads), on one clock across the CPUs.
echo mono > $T/trace_clock
echo 1 > $T/options/event-fork
for e in syscalls/sys_enter_execve sched/sched_process_exec syscalls/sys_enter_bpf \
	syscalls/sys_exit_bpf; do
	echo 1 > $T/events/$e/enable || exit 1
done

# start PROG ARG...: exec PROG in the chroot from a shell that first keeps the
# events to itself, empties the buffer (the trace holds this run only) and leaves
# its pid, which PROG keeps, in $W/pid; $ENV_ (words of NAME=VALUE) goes to PROG
start() {
	sh -c "echo \$\$ > $T/set_event_pid; echo > $T/trace; echo \$\$ > $W/pid
		exec env -i PATH=/usr/sbin:/usr/bin ${ENV_:-} chroot $R \"\$@\"" sh "$@"
}

# elapsed PROG: from the trace, in ms: the tool's execve (the last one of its pid
# before the exec of PROG went through) to the return of its last successful
# BPF_LINK_CREATE (cmd 28); then that exec to the call, the call, and how many
# such calls succeeded
elapsed() {
	awk -v prog="$1" '
	function ts(  i) {
		for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) return substr($i, 1, length($i) - 1)
		return ""
	}
	function tid(  i, t) {
		for (i = 2; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) { t = $(i - 1); sub(/.*-/, "", t); return t }
		return ""
	}
	/^#/ { next }
	/ sys_execve\(/ { ex[tid()] = ts(); next }
	/ sched_process_exec: / && index($0, "filename=" prog " ") {
		t = tid(); start = (t in ex) ? ex[t] : ts(); next
	}
	start == "" { next }
	/ sys_bpf\(cmd: (0x)?0*1c[,) ]/ { lk[tid()] = ts(); next }
	/ sys_bpf -> / {
		t = tid()
		if ((t in lk) && $NF !~ /^(0x)?f{8}|^-/) { n++; enter = lk[t]; done = ts() }
		delete lk[t]
	}
	END {
		if (start == "" || !n) { print "- - - 0"; exit }
		printf "%.1f %.1f %.1f %d\n", (done - start) * 1000, (enter - start) * 1000,
			(done - enter) * 1000, n
	}' $T/trace
}

# bt [HOOK]: bpftrace as a fleet engineer starts it; stopped with SIGINT once it
# says it is attached (its test hook: a line on stdout after the last attach, read
# here blocking, so nothing polls beside it); HOOK runs just before that
bt() {
	rm -f $W/fifo; mkfifo $W/fifo
	ENV_=__BPFTRACE_NOTIFY_PROBES_ATTACHED=1 start /usr/bin/bpftrace -e "$BT" > $W/fifo 2> $W/bt.err &
	while read -r l; do
		case $l in __BPFTRACE_NOTIFY_PROBES_ATTACHED*) ${1:-:}; kill -INT "$(cat $W/pid)" ;; esac
	done < $W/fifo
	wait $!
}
cold() { rm -rf $R/run/ksymattach $R/var/cache/ksymattach; }

# attached_now: the functions matching PAT that the kernel has a tracer on now
# (enabled_functions, by ftrace's records: the same list whether a tool gave the
# kernel names or addresses; bpftool cannot name a link's addresses that are not
# a symbol's start). Only one tool runs at a time; the filter leaves out
# bpftrace's one-function probe of the feature (ksys_read) were it still there.
re="^$(echo "$PAT" | sed 's/[*]/.*/g; s/?/./g')\$"
attached_now() { awk -v re="$re" '/^[^ \t]/ && $1 ~ re { print $1 }' $T/enabled_functions | sort -u; }

# Which functions each attaches, untimed; also the warm-up of both (a first exec
# of each binary, the kernel's first BTF and tracefs reads).
bt_list() { attached_now > $W/fn.bpftrace; }
bt bt_list > /dev/null 2>&1
# the last tool's link may outlive it briefly
i=0
until [ -z "$(attached_now)" ] || [ $i -gt 100 ]; do i=$((i + 1)); sleep 0.1; done
cold
chroot $R $KSYM -p "$PAT" -d 300 > $W/ksym-list.out 2>&1 &
p=$!
i=0
until grep -q '^ksymattach: attached' $W/ksym-list.out || [ $i -gt 600 ]; do i=$((i + 1)); sleep 0.1; done
attached_now > $W/fn.ksymattach
kill -INT $p; wait $p

rm -f $W/t.*
for i in $(seq "$ROUNDS"); do
	cold; start $KSYM -p "$PAT" > $W/ksym.out 2>&1 || { echo "ksymattach failed:"; cat $W/ksym.out; }
	elapsed $KSYM >> $W/t.ksym-cold
	start $KSYM -p "$PAT" > $W/ksym.out 2>&1 || { echo "ksymattach failed:"; cat $W/ksym.out; }
	elapsed $KSYM >> $W/t.ksym-warm
	bt > /dev/null 2>&1 || { echo "bpftrace failed:"; cat $W/bt.err; }
	elapsed /usr/bin/bpftrace >> $W/t.bpftrace
done
echo > $T/set_event_pid
for e in syscalls/sys_enter_execve sched/sched_process_exec syscalls/sys_enter_bpf \
	syscalls/sys_exit_bpf; do
	echo 0 > $T/events/$e/enable
done
echo 0 > $T/options/event-fork
echo local > $T/trace_clock
echo > $T/trace

# median FILE COLUMN
median() { awk -v c="$2" '{ print $c }' "$1" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "### bpftrace ($btv, trixie) against ksymattach, $PAT on $(uname -r): start to attached, ms, $ROUNDS alternated rounds"
echo "# the kernel's clock (tracefs events sys_enter_execve, sched_process_exec, sys_enter/exit_bpf"
echo "# kept to the tool's pid and its threads; trace_clock mono): from the tool's execve to the"
echo "# return of its last successful BPF_LINK_CREATE. to-link: exec to that call; link: the call"
echo "# (bpftrace gives the kernel names, ksymattach addresses); links: successful LINK_CREATEs."
echo "# Both from one trixie chroot in guest memory, one at a time; bpftrace stopped by SIGINT"
echo "# after its attached notice (__BPFTRACE_NOTIFY_PROBES_ATTACHED), ksymattach detaches itself."
bmed=$(median $W/t.bpftrace 1)
{
	printf '%-10s' tool; for i in $(seq "$ROUNDS"); do printf ' %8s' "r$i"; done
	printf ' %8s %8s %8s %5s %9s\n' median to-link link links /bpftrace
	for t in ksym-cold ksym-warm bpftrace; do
		printf '%-10s' $t
		awk '{ printf " %8s", $1 }' $W/t.$t
		m=$(median $W/t.$t 1)
		printf ' %8s %8s %8s %5s %9s\n' "$m" "$(median $W/t.$t 2)" "$(median $W/t.$t 3)" \
			"$(median $W/t.$t 4)" "$(awk -v a="$m" -v b="$bmed" 'BEGIN { if (b > 0) printf "%.3fx", a / b; else print "-" }')"
	done
}
echo "### functions attached (enabled_functions while each was attached): bpftrace $(wc -l < $W/fn.bpftrace), ksymattach $(wc -l < $W/fn.ksymattach)"
only() { grep -vxFf "$1" "$2" | tr '\n' ' ' | grep . || echo "(none)"; }
echo "only ksymattach: $(only $W/fn.bpftrace $W/fn.ksymattach)"
echo "only bpftrace: $(only $W/fn.ksymattach $W/fn.bpftrace)"
bt_unroot $R
