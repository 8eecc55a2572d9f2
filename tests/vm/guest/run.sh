# Guest entry: run the suite for one kernel series; TAP lines on stdout. kind:
# full (the kernel has kprobe.multi and kprobe.session) or fallback (classic
# kprobes only), as the host expects of that kernel; the kernel's own symbols
# must agree.
series=$1 kind=$2
shift 2	# the parts to run, where given: the rest of the arguments
cd /host/tests || exit 1
. ./lib.sh
echo "# guest $(uname -r), the $kind suite"
has=fallback
grep -q ' register_fprobe$' /proc/kallsyms && grep -q ' bpf_session_cookie$' /proc/kallsyms && has=full
is "$has" "$kind" "the kernel has what the $kind suite tests (fprobe and the session kfuncs, or neither)"
# each part's time in the guest, as a comment: where the suite's minutes go
part_t0=$(cut -d' ' -f1 /proc/uptime)
part() {
	part_name=$1	# (a part may set its own positional parameters)
	. ./$1
	part_t1=$(cut -d' ' -f1 /proc/uptime)
	echo "# $part_name: $(awk -v a="$part_t0" -v b="$part_t1" 'BEGIN { printf "%.1f", b - a }') s"
	part_t0=$part_t1
}
if [ $# -gt 0 ]; then
	for p; do part $p; done
else
	part lookup.sh
	part sources.sh
	part iter.sh
	case $kind in
	fallback) part old.sh ;;
	*) part multi.sh; part attach.sh; part agent.sh; part bpftool.sh ;;
	esac
	part watch.sh
	part tmulti.sh
	# bad environments and signals at any moment: on one kernel of each kind
	# (docs/reliability.md's), which keeps make check within its half hour
	case $series in
	6.12|6.1) part faults.sh; part signals.sh ;;
	*) skip "faults.sh and signals.sh" "run on 6.12 and 6.1, one kernel of each kind" ;;
	esac
	part errors.sh
	part features.sh
	part lockdown.sh	# last: lockdown cannot be lifted
fi
# every part ran to its end: the host fails a suite whose log lacks this line
echo "# guest suite: done"
