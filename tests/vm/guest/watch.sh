# ksymattach watch: what it reports of other processes' attach, against what
# those processes report themselves. Every resolver of ksymattach and the
# example agent attach while it watches (classic kprobes where the kernel has
# no kprobe.multi), and one attaches a module loaded while it watches; an agent
# killed halfway is still recorded; thousands of short processes keep its table
# bounded; nothing is left attached after it. Then the boot watch's program by
# hand: its record at the window's end, running totals after it.
WJ=$O/watch.json
# rec PID: the watch's record of one process, a line of its JSON
rec() { grep "^{\"pid\":$1," $WJ; }
# field LINE KEY: a top-level value of a record (numbers, strings unquoted)
field() { echo "$1" | sed -n "s/.*\"$2\":\"\{0,1\}\([^\",}]*\).*/\1/p" | head -n1; }
# positive MS: a time above zero ("0.000" is not)
positive() { awk -v v="$1" 'BEGIN { exit !(v + 0 > 0) }'; }

rm -f $O/watch.err
$K watch -d 600 -o json > $WJ 2> $O/watch.err &
wpid=$!
if ! wait_for $O/watch.err 60 'watching'; then
	not_ok "watch: starts ($(head -c 300 $O/watch.err))"
	kill $wpid 2>/dev/null
	return 0 2>/dev/null || exit 0
fi
ok "watch: starts and says so"

# run NAME ARGS...: ksymattach ARGS as a process of its own; its pid in pid_NAME
run() {
	_n=$1; shift
	$K "$@" -o json > $O/w-$_n.json 2> $O/w-$_n.err &
	eval "pid_$_n=$!"
	wait $!
	eval "rc_$_n=$?"
}
if [ "$kind" = full ]; then
	run kernel -p 'vfs_*' -r kernel
	run ksym -p 'vfs_*' -r ksym
	run libbpf -p 'vfs_*' -r libbpf
	/host/bin/agent 'vfs_*' 1 > $O/w-agent.out 2>&1 &
	pid_agent=$!
	wait $pid_agent
	runs="kernel ksym libbpf"
	# Debian's bpftrace, as a fleet engineer starts it, stopped with SIGINT once
	# it says it is attached (its test hook); how many functions its links
	# hold, by bpftool, meanwhile
	bt_fns= pid_bt=
	# (the newest bpftool prints a kprobe.multi link's func_cnt; bookworm's not)
	B=bpftool; command -v bpftool-new > /dev/null && B=bpftool-new
	if [ -f /host/bt.tar ] && . ./btroot.sh && bt_root /bt /host/bt.tar; then
		rm -f /tmp/w-bt.fifo; mkfifo /tmp/w-bt.fifo
		env -i PATH=/usr/sbin:/usr/bin __BPFTRACE_NOTIFY_PROBES_ATTACHED=1 chroot /bt \
			/usr/bin/bpftrace -e 'kprobe:vfs_* { @[func] = count(); }' \
			> /tmp/w-bt.fifo 2> $O/w-bt.err &
		pid_bt=$!
		while read -r l; do
			case $l in __BPFTRACE_NOTIFY_PROBES_ATTACHED*)
				$B link show > $O/w-bt-links.txt 2>&1
				bt_fns=$(awk '/func_cnt/ { for (i = 1; i < NF; i++)
					if ($i == "func_cnt") n += $(i + 1) } END { print n + 0 }' $O/w-bt-links.txt)
				bt_live=$(grep -c 'func_cnt' $O/w-bt-links.txt)
				kill -INT $pid_bt ;;
			esac
		done < /tmp/w-bt.fifo
		wait $pid_bt
		bt_unroot /bt
	fi
	bt_why=$(cat $O/bt-missing 2>/dev/null)
else
	# classic kprobes: by address (ksym), by name (the kernel resolves each)
	run ksym -p 'vfs_r*' -r ksym
	run kernel -p 'vfs_r*' -r kernel
	runs="ksym kernel"
fi
# a module loaded while it watches, its functions attached by their module
mod_was=; grep -q '^dummy ' /proc/modules && mod_was=1
[ -n "$mod_was" ] || insmod /modules/dummy.ko
run mod -p 'dummy:*'
[ -n "$mod_was" ] || rmmod dummy
runs="$runs mod"

# an agent killed halfway: resolved, then killed before its attach
rm -f $O/w-killed.err
KSYMATTACH_PAUSE=60 $K -p 'vfs_*' --no-cache > /dev/null 2> $O/w-killed.err &
pid_killed=$!
wait_for $O/w-killed.err 60 'pausing'
kill -9 $pid_killed
wait $pid_killed 2>/dev/null

# a second watcher, bounded to 20 records, beside 200 short readers of kallsyms
rm -f $O/watch-b.err
$K watch -d 600 -o json --max-procs 20 > $O/watch-b.json 2> $O/watch-b.err &
bpid=$!
wait_for $O/watch-b.err 60 'watching'
i=0
while [ $i -lt 200 ]; do head -c 1 /proc/kallsyms > /dev/null; i=$((i + 1)); done
sleep 1
kill -INT $bpid
wait $bpid
is "$?" 0 "watch: a second watcher ends on SIGINT with its report (exit 0)"
n=$(grep -c '^{"pid":' $O/watch-b.json)
ev=$(json_int evicted $O/watch-b.json)
if [ "$n" -le 20 ] && [ "${ev:-0}" -ge 180 ]; then
	ok "watch: 200 short processes, 20 records kept at most ($n kept, $ev dropped and counted)"
else
	not_ok "watch: 200 short processes, 20 records kept at most ($n kept, '$ev' dropped)"
fi

sleep 1
kill -INT $wpid
wait $wpid
is "$?" 0 "watch: ends on SIGINT with its report (exit 0)"
check "watch: the report is whole" grep -q '^]}$' $WJ
sed -n 1p $WJ | sed 's/^/# /'
is "$(json_int dropped_events $WJ)" 0 "watch: no event dropped"
unmeasured=$(sed -n 1p $WJ | sed -n 's/.*"unmeasured":{\(.*\)},"processes".*/\1/p')

for r in $runs; do
	eval "p=\$pid_$r; rc=\$rc_$r"
	what="-r $r"; [ $r = mod ] && what="a module loaded mid-watch (dummy:*)"
	line=$(rec $p)
	if [ -z "$line" ]; then
		not_ok "watch: $what (pid $p) is recorded"
		continue
	fi
	echo "# $line" | cut -c 1-400
	want=$(json_int attached $O/w-$r.json)
	is "$rc:$(field "$line" functions)" "0:$want" "watch: $what: its functions, as it reports them ($want)"
	case $r in kernel) by=names ;; *) by=addresses ;; esac
	is "$(field "$line" by)" "$by" "watch: $what: the kernel was given $by"
	kres=$(field "$line" kernel_resolve_ms)
	if [ -n "$unmeasured" ] && echo "$unmeasured" | grep -q kernel_resolve; then
		is "$kres" null "watch: $what: the kernel's name resolution, not measured here, is null"
	elif [ $r = kernel ]; then
		check "watch: $what: the kernel's name resolution took time ($kres ms)" positive "$kres"
	else
		# addresses: no lookup a function (5.10 still looks up the name of
		# a kprobe's '.'-suffixed alias in within_kprobe_blacklist())
		calls=$(field "$line" kernel_resolve_calls)
		if [ "${calls:-x}" -lt "$want" ] 2>/dev/null; then
			ok "watch: $what: no name lookup a function in the kernel ($calls calls, $kres ms)"
		else
			not_ok "watch: $what: no name lookup a function in the kernel ($calls calls for $want)"
		fi
	fi
	check "watch: $what: a stall above zero ($(field "$line" stall_ms) ms)" \
		positive "$(field "$line" stall_ms)"
	is "$(field "$line" exited)" true "watch: $what: ended"
done
if [ "$kind" = full ]; then
	line=$(rec $pid_agent)
	want=$(sed -n 's/.*: \([0-9]*\) functions attached.*/\1/p' $O/w-agent.out)
	is "$(field "$line" functions):$(field "$line" by)" "${want:-?}:addresses" \
		"watch: the example agent: its $want functions, by address"
	libbpf_read=$(echo "$(rec $pid_libbpf)" | grep -c available_filter_functions)
	is "$libbpf_read" 1 "watch: -r libbpf: its read of tracefs' function list is seen"
	if [ -n "$pid_bt" ]; then
		line=$(rec $pid_bt)
		echo "# $line" | cut -c 1-600
		# its feature probe, a kprobe.multi link on one function closed before
		# the attach, is a link made too: one function each beyond the live ones
		made=$(echo "$line" | sed -n 's/.*"kprobe_multi":\([0-9]*\).*/\1/p')
		want=$((bt_fns + ${made:-0} - bt_live))
		is "$(field "$line" comm):$(field "$line" functions)" "bpftrace:$want" \
			"watch: bpftrace: its functions, as its links held them ($bt_fns in $bt_live live, $((${made:-0} - bt_live)) probed)"
		is "$(field "$line" by)" names "watch: bpftrace: the kernel was given names"
		kres=$(field "$line" kernel_resolve_ms)
		check "watch: bpftrace: the kernel's name resolution took time ($kres ms)" \
			positive "$kres"
		check "watch: bpftrace: its symbol-file reads are seen ($(field "$line" symbol_read_ms) ms)" \
			positive "$(field "$line" symbol_read_ms)"
	elif [ ! -f /host/bt.tar ] && [ -z "$bt_why" ]; then
		skip "watch: bpftrace" "the suite gives bpftrace's root filesystem to the newest kernel's x86-64 guest alone"
	else
		not_ok "watch: bpftrace ran (${bt_why:-$(head -c 300 $O/w-bt.err 2>/dev/null)})"
	fi
fi
line=$(rec $pid_killed)
is "$(field "$line" exited):$(field "$line" links):$(field "$line" stall_ms)" "true:0:0.000" \
	"watch: an agent killed before its attach: recorded, no link, no stall"

# ksymattach-watch.service's program by hand: a window of 2 s, then running
# totals every second; an agent after the window is in the totals, not the record
rm -rf /tmp/bw; mkdir -p /tmp/bw
printf 'pattern = vfs_read\nwatch_window = 2s\ninterval = 1s\njson_dir = /tmp/bw\nprom_file = /tmp/bw/k.prom\n' \
	> /tmp/bw.conf
$K boot-watch --config /tmp/bw.conf > $O/bw.out 2> $O/bw.err &
bwpid=$!
if wait_for $O/bw.out 120 'processes attaching in the first'; then
	run tot -p 'vfs_r*'
	want=$(json_int attached $O/w-tot.json)
	# the next rewrite after its exit, or 10 s
	P=/tmp/bw/ksymattach-watch.prom
	i=0
	until grep -q '^ksymattach_watch_functions_total{comm="ksymattach",' $P || [ $i -gt 100 ]; do
		i=$((i + 1)); sleep 0.1
	done
	sleep 1.5
	tot() { awk -v m="$1{comm=\"ksymattach\"," 'index($0, m) == 1 { n += $2 } END { print n + 0 }' $P; }
	is "$(tot ksymattach_watch_functions_total):$(tot ksymattach_watch_attaches_total)" "$want:1" \
		"boot-watch: an agent after the window is in the running totals ($want functions, 1 attach)"
	grep '^ksymattach_watch_.*_total{comm="ksymattach"' $P | sed 's/^/# /'
	is "$(grep -c "^{\"pid\":$pid_tot," /tmp/bw/latest-watch.json)" 0 \
		"boot-watch: the boot's record ends with its window"
	kill -TERM $bwpid
	wait $bwpid
	is "$?" 0 "boot-watch: ends on SIGTERM with its totals written (exit 0)"
else
	not_ok "boot-watch: writes its record at the window's end ($(head -c 300 $O/bw.err))"
	kill $bwpid
fi
is "$(probes_left)" 0 "watch: nothing left attached after it"
