# bench-percall.sh (run in the guest by bench.sh): the cost per traced call.
# bin/syscall_loop reads 1 byte from /dev/zero in a tight loop and prints the time a
# call took (the best of its repetitions); the functions that read(2) goes through
# get each kind of probe in turn: none, kprobe.multi, fentry.multi (both the same
# hand-assembled hit counter), kprobe.session and fsession.multi (both the same
# entry-and-return program), alternated over rounds in this one boot (every other
# round in reverse order). The functions: a fixed list of the path's (as ftrace's
# function tracer saw it on 7.3: entry, the fd, vfs_read, the LSM hooks, /dev/zero's
# read), those tracefs lists, kept where a run of the loop under kprobe.multi (and
# fentry.multi, where the kernel has it) counts each at least once a call. Each
# row: the functions attached, hits a call (their count, if every probe ran), the
# median over rounds of ns a call (and the spread), what it adds over none, in all
# and per function; then the added cost of fentry.multi against kprobe.multi's, and
# of fsession.multi against kprobe.session's. A mode whose probes counted nothing
# gives no number. PERCALL_ROUNDS, PERCALL_CALLS, PERCALL_REPS change the sizes;
# PERCALL_CLOCK=icount says the guest's clock counts instructions (vm.sh's
# VM_ICOUNT, as bench.sh runs it: wall time under TCG varied 1.5x from run to run).
K=./bin/ksymattach
L=./bin/syscall_loop
W=/tmp/percall
F=/sys/kernel/tracing/available_filter_functions
rounds=${PERCALL_ROUNDS:-7} calls=${PERCALL_CALLS:-20000} reps=${PERCALL_REPS:-5}
if ! grep -q ' register_fprobe$' /proc/kallsyms; then
	echo "### cost per traced call: not on kernel $(uname -r): no kprobe.multi"
	exit 0
fi
rm -rf $W; mkdir -p $W
modes="none multi"
tm= session=
grep -q ' bpf_tracing_multi_attach$' /proc/kallsyms &&
	grep -q ' bpf_trampoline_multi_attach$' /proc/kallsyms && tm=1
grep -q ' bpf_session_cookie$' /proc/kallsyms && session=1
[ -n "$tm" ] && modes="$modes fentry"
[ -n "$session" ] && modes="$modes session"
[ -n "$tm" ] && [ -n "$session" ] && modes="$modes fsession"

# ksymattach's name of a mode's link
label() {
	case $1 in
	multi) echo kprobe.multi ;; session) echo kprobe.session ;; none) echo none ;;
	*) echo $1.multi ;;
	esac
}

# run MODE FILE LOOP-ARGS...: the loop, under MODE's probes on FILE's functions
# (none: under none); one line in $W/run: "NS HITS CALLS ATTACHED" (HITS the sum
# over the functions, also per function in $W/hits: "NAME HITS"), or "refused WHY"
run() {
	mode=$1 fns=$2; shift 2
	: > $W/hits; : > $W/excl
	if [ $mode = none ]; then
		$L "$@" > $W/loop || { echo "refused the loop failed" > $W/run; return; }
		sed -n 's/^best_ns=\([0-9.]*\) .* calls=\([0-9]*\) .*/\1 0 \2 0/p' $W/loop > $W/run
		return
	fi
	# (gone before the start: the wait below must not read the last run's)
	rm -f $W/k.json $W/k.err
	$K -m $mode -p @$fns -d 3600 -o json > $W/k.json 2> $W/k.err &
	pid=$!
	i=0
	while ! grep -q '^ksymattach: attached [0-9]* functions' $W/k.err 2> /dev/null; do
		i=$((i + 1))
		if ! kill -0 $pid 2> /dev/null || [ $i -gt 1200 ]; then
			kill -INT $pid 2> /dev/null; wait $pid
			echo "refused $(grep -v '^$' $W/k.err | tail -n 1)" > $W/run
			return
		fi
		sleep 0.1
	done
	$L "$@" > $W/loop
	kill -INT $pid; wait $pid
	rc=$?
	if [ $rc -ne 130 ]; then
		echo "refused ksymattach ended $rc on SIGINT: $(grep -v '^$' $W/k.err | tail -n 1)" > $W/run
		return
	fi
	grep -o '"name":"[^"]*","addr":"[^"]*","module":[^,]*,"hits":[0-9]*' $W/k.json |
		sed 's/^"name":"\([^"]*\)".*"hits":\([0-9]*\)$/\1 \2/' |
		awk '{ h[$1] += $2 } END { for (f in h) print f, h[f] }' | sort > $W/hits
	grep -o '{"name":"[^"]*","addr":"[^"]*","reason":"[^"]*"}' $W/k.json |
		sed 's/^{"name":"\([^"]*\)".*"reason":"\([^"]*\)"}$/\1 \2/' > $W/excl
	r_ns=$(sed -n 's/^best_ns=\([0-9.]*\) .*/\1/p' $W/loop)
	r_calls=$(sed -n 's/.* calls=\([0-9]*\) .*/\1/p' $W/loop)
	r_hits=$(awk '{ s += $2 } END { print s + 0 }' $W/hits)
	r_att=$(grep -o '"attached":[0-9]*' $W/k.json | sed 's/.*://')
	if [ -z "$r_ns" ] || [ -z "$r_att" ]; then
		echo "refused no loop time or no report: $(grep -v '^$' $W/k.err | tail -n 1)" > $W/run
		return
	fi
	echo "$r_ns $r_hits $r_calls $r_att" > $W/run
}

# The path: the functions ftrace's function tracer saw once a read of /dev/zero on
# 7.3.4 (the same hooks by other names on other kernels and LSMs), less the ones
# every path takes (RCU, the FPU's check on the way out)
for f in x64_sys_call __x64_sys_read __arm64_sys_read ksys_read fdget_pos __fdget_pos \
	__fget_light vfs_read rw_verify_area security_file_permission \
	apparmor_file_permission common_file_perm aa_file_perm selinux_file_permission \
	bpf_lsm_file_permission fsnotify_file_area_perm read_zero read_iter_zero \
	iov_iter_zero; do
	echo $f
done | sort > $W/cand
sed -n 's/^\([^ ]*\)$/\1/p' $F | sort -u > $W/traceable
grep -Fxf $W/cand $W/traceable > $W/listed
if [ ! -s $W/listed ]; then
	echo "### cost per traced call: none of the path's functions is traceable here:" \
		"$(echo $(cat $W/cand))"
	exit 0
fi
# kept: each counted at least once a call, under kprobe.multi and fentry.multi
cp $W/listed $W/path
: > $W/dropped
for m in multi ${tm:+fentry}; do
	run $m $W/path -n 2000 -r 1
	if grep -q '^refused' $W/run; then
		echo "### cost per traced call: $(label $m) on the path refused: $(cut -d' ' -f2- $W/run)"
		exit 0
	fi
	c=$(cut -d' ' -f3 $W/run)
	awk -v c=$c '$2 >= c { print $1 }' $W/hits > $W/kept
	awk -v c=$c -v m=$(label $m) 'FILENAME == ARGV[1] { h[$1] = $2; next }
		FILENAME == ARGV[2] { x = $1; sub(/^[^ ]* /, ""); ex[x] = $0; next }
		$1 in ex { print "left out: " $1 ": " m " leaves it out (" ex[$1] ")"; next }
		!($1 in h) { print "left out: " $1 ": not attached by " m; next }
		h[$1] < c { print "left out: " $1 ": " h[$1] " hits in " c " calls under " m }' \
		$W/hits $W/excl $W/path >> $W/dropped
	mv $W/kept $W/path
done
np=$(wc -l < $W/path)
clock="the guest's wall clock under TCG"
[ "${PERCALL_CLOCK:-}" = icount ] && clock="the guest's instruction clock (1 ns: 1 instruction)"
echo "### cost per traced call: read(2) of 1 byte from /dev/zero, $calls calls x $reps a run" \
	"(the best), $rounds rounds; ns by $clock: only the ratios within this run mean anything"
if [ $np -eq 0 ]; then
	echo "!!! none of the path's functions ($(echo $(cat $W/listed))) was counted once a call:" \
		"no measurement"
	exit 0
fi
echo "path: $np functions: $(echo $(cat $W/path))"
cat $W/dropped
[ -n "$tm" ] || echo "fentry.multi, fsession.multi: not on this kernel (no tracing_multi link):" \
	"the kprobe rows only"
[ -n "$session" ] || echo "kprobe.session: not on this kernel (no bpf_session_cookie kfunc)"
rev=$(for m in $modes; do echo $m; done | awk '{ l[NR] = $0 } END { for (i = NR; i > 0; i--) print l[i] }')
: > $W/rows
r=1
while [ $r -le $rounds ]; do
	order=$modes; [ $((r % 2)) -eq 0 ] && order=$rev
	for m in $order; do
		run $m $W/path -n $calls -r $reps
		echo "$r $m $(cat $W/run)" >> $W/rows
	done
	r=$((r + 1))
done
awk -v modes="$modes" -v np=$np '
function label(m) {
	if (m == "multi" || m == "session")
		return "kprobe." m
	return m == "none" ? m : m ".multi"
}
# the median of the numbers in the string v, their least in lo, their most in hi
function median(v,   a, n, i, j, t) {
	n = split(v, a, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	lo = a[1]; hi = a[n]
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# the added cost of mode a against that of mode b, round by round (each against
# its own round of none): their median, and its spread
function ratio(a, b,   r, v, med) {
	if (add[a] == "" || add[b] <= 0)
		return
	for (r = 1; r <= rounds; r++)
		if ((r, "none") in t && (r, a) in t && (r, b) in t && t[r, b] > t[r, "none"])
			v = v " " (t[r, a] - t[r, "none"]) / (t[r, b] - t[r, "none"])
	med = median(v)
	printf "added cost, %s / %s: %.2fx (of the medians), %.2fx (%.2f..%.2f) round by round\n",
		label(a), label(b), add[a] / add[b], med, lo, hi
}
$3 == "refused" { why[$2] = $0; sub(/^[^ ]* [^ ]* refused /, "", why[$2]); nref[$2]++; next }
{
	t[$1, $2] = $3; ns[$2] = ns[$2] " " $3; hits[$2] += $4; calls[$2] += $5; att[$2] = $6
	rounds = $1 > rounds ? $1 : rounds
}
END {
	printf "%-15s %6s %9s %10s %21s %9s %10s\n", "mode", "funcs", "hits/call", "ns/call",
		"(min..max)", "added", "added/func"
	n = split(modes, ml, " ")
	if (ns["none"] != "")
		base = median(ns["none"])
	for (i = 1; i <= n; i++) {
		m = ml[i]
		if (ns[m] == "") {
			printf "%-15s refused: %s\n", label(m), why[m]
			continue
		}
		if (nref[m])
			loud = loud "!!! " label(m) ": refused in " nref[m] " rounds of " nref[m] + \
				split(ns[m], ignored, " ") ": " why[m] "\n"
		med = median(ns[m])
		spread = sprintf("(%.1f..%.1f)", lo, hi)
		if (m == "none") {
			printf "%-15s %6s %9s %10.1f %21s\n", "none", "-", "-", med, spread
			continue
		}
		if (hits[m] == 0) {
			printf "%-15s %6d NO HITS: its probes never ran in the loop; no number\n",
				label(m), att[m]
			loud = loud "!!! " label(m) ": " att[m] " functions attached, 0 hits counted over " \
				calls[m] " calls\n"
			continue
		}
		hpc = hits[m] / calls[m]
		if (ns["none"] != "")
			add[m] = med - base
		printf "%-15s %6d %9.2f %10.1f %21s %9s %10s\n", label(m), att[m], hpc, med, spread,
			add[m] == "" ? "-" : sprintf("%.1f", add[m]),
			add[m] == "" ? "-" : sprintf("%.1f", add[m] / att[m])
		if (hpc < att[m] * 0.99)
			loud = loud "!!! " label(m) ": " sprintf("%.2f", hpc) " hits a call, fewer than its " \
				att[m] " functions: some probes did not run every call\n"
		if (att[m] != np)
			loud = loud "!!! " label(m) ": " att[m] " functions attached of the path'"'"'s " np "\n"
	}
	printf "%s", loud
	ratio("fentry", "multi")
	ratio("fsession", "session")
}' $W/rows
