# The attach engine on a kernel with kprobe.multi and kprobe.session (6.12).
want=$(count_traceable vfs_)
ge "${want:-0}" 10 "attach: the guest lists vfs_* functions ($want)"

# session: calls on entry and return, latencies plausible
N=400
$K -p vfs_read -m session -d 120 -o json > $O/sess.json 2> $O/sess.err &
pid=$!
check "session: announces it is attached" wait_for $O/sess.err 60 'attached'
dd if=/dev/zero of=/dev/null bs=1 count=$N 2>/dev/null
kill -INT $pid; wait $pid
is "$?" 130 "session: SIGINT ends it, 130"
calls=$(json_int calls $O/sess.json); rets=$(json_int returns $O/sess.json)
ge "$calls" $N "session: vfs_read calls >= $N reads"
check "session: returns match calls ($rets of $calls)" \
	sh -c "[ '$rets' -ge $((calls - 2)) ] && [ '$rets' -le '$calls' ]"
avg=$(json_int avg_ns $O/sess.json)
check "session: average latency plausible (${avg} ns)" \
	sh -c "[ '${avg:-0}' -gt 0 ] && [ '${avg:-0}' -lt 100000000 ]"
check "session: a latency histogram" grep -q '"latency_ns_log2":\[[0-9,]*[1-9]' $O/sess.json

# every resolver: the kernel lists the same functions in its links
for r in ksym kernel libbpf; do
	$K -p 'vfs_*' -r $r -o json > $O/res-$r.json
	rc=$?
	is "$rc:$(json_int confirmed $O/res-$r.json)" "0:$want" "resolver $r: the kernel confirms all $want vfs_*"
	check "resolver $r: no function unconfirmed" \
		sh -c "grep -q '\"confirmed\":true' $O/res-$r.json && ! grep -q '\"confirmed\":false' $O/res-$r.json"
done

# a link per function: that many links while attached, none after
$K -p 'vfs_*' --link-per-func -m session -d 120 -o json > $O/lpf.json 2> $O/lpf.err &
pid=$!
check "link per function: attached" wait_for $O/lpf.err 120 'attached'
is "$(bpftool link show | grep -c kprobe_multi)" "$want" "link per function: $want links while attached"
kill -INT $pid; wait $pid
is "$?" 130 "link per function: SIGINT ends it, 130"
is "$(json_int links $O/lpf.json)" "$want" "link per function: the report counts $want links"
is "$(probes_left)" 0 "link per function: none left after exit"
$K -p 'vfs_*' --batch 10 -o json > $O/batch.json
is "$(json_int links $O/batch.json)" $(( (want + 9) / 10 )) "--batch 10: links of 10"

# Prometheus text format: HELP and TYPE for every metric, samples well formed
$K -p vfs_read -m session -o prom > $O/prom.txt
check "prom: calls counter" grep -q '^ksymattach_function_calls_total{function="vfs_read",module=""} [0-9]' $O/prom.txt
check "prom: latency histogram with +Inf" grep -q '^ksymattach_function_latency_seconds_bucket{function="vfs_read",module="",le="+Inf"} ' $O/prom.txt
bad=$(grep -v '^#' $O/prom.txt | grep -cvE '^[a-z_]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? [0-9.e+-]+$')
is "$bad" 0 "prom: every sample line is well formed"
metrics=$(grep -v '^#' $O/prom.txt | sed 's/[{ ].*//; s/_\(bucket\|sum\|count\)$//' | sort -u)
missing=
for m in $metrics; do
	grep -q "^# TYPE $m " $O/prom.txt || missing="$missing $m"
done
check "prom: a TYPE line for each of $(echo $metrics | wc -w) metrics${missing:+ (none for$missing)}" \
	sh -c "[ -n '$(echo $metrics)' ] && [ -z '$missing' ]"

# --compare: every resolver, the ratios and the kernel's per-name cost
# (medians of 3: in a single round under TCG the warm row has come out below the floor)
$K -p 'vfs_*' --compare --rounds 3 > $O/cmp.txt
check "compare: every resolver's row" grep -q 'ksym-cold.*ksym-warm.*ksym-boot.*kernel.*libbpf' $O/cmp.txt
check "compare: ratio to libbpf" grep -q '^/libbpf .*1.000x' $O/cmp.txt
check "compare: kernel per-name cost" grep -q 'kernel-side name resolution: [+-][0-9.]* us per name' $O/cmp.txt
check "compare: the floor row" grep -q 'ksym-cold.*ksym-warm.*ksym-boot.*kernel.*libbpf.*floor' $O/cmp.txt
# every resolver does work the floor does not: ksym's rows and the kernel's read
# and match before their attach, libbpf resolves in its load-and-attach call, and
# the floor resolves nothing (a program's load alone is the same for all: under
# TCG its noise between rounds is larger than a warm run's read); the stall
# ratios are printed
fl=$(awk '/^stall/ { s = 1 } s && /^\/floor/ { print; exit }' $O/cmp.txt)
res=$(awk '/^(read|parse|index|match) / { for (i = 2; i <= NF; i++) if ($i !~ /^\[/) { c++; t[c] += $i }; c = 0 }
	   END { for (i = 1; i <= 6; i++) printf "%s%.1f", (i > 1 ? " " : ""), t[i] }' $O/cmp.txt)
load=$(awk '/^load / { for (i = 2; i <= NF; i++) if ($i !~ /^\[/) printf "%s%s", (c++ ? " " : ""), $i; exit }' $O/cmp.txt)
check "compare: every resolver's work before attaching above the floor's (resolve $res, load $load ms; stall $fl)" sh -c \
	"echo '$res' | awk '{ for (i = 1; i <= 4; i++) if (\$i + 0 <= 0) exit 1; exit !(\$6 + 0 == 0) }' &&
	 echo '$load' | awk '{ exit !(\$5 + 0 > \$6 + 0) }' && echo '$fl' | awk '{ exit !(\$7 + 0 == 1) }'"

# --compare over the whole kernel, one round: every row runs (none refused), and
# nothing is left attached; the ratios are printed. On the newest kernel only: a
# round takes minutes under emulation.
if [ "$series" = newest ]; then
	t0=$(cut -d' ' -f1 /proc/uptime)
	$K -p '*' --compare --rounds 1 -o json > $O/cmp-all.json 2> $O/cmp-all.err
	rc=$?
	t1=$(cut -d' ' -f1 /proc/uptime)
	is "$rc" 0 "compare, the whole kernel: completes ($(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.0f", b - a }') s)"
	is "$(grep -o '"resolver":"[a-z-]*","phases_ms"' $O/cmp-all.json | cut -d'"' -f4 | tr '\n' ' ')" \
		"ksym-cold ksym-warm ksym-boot kernel libbpf floor " "compare, the whole kernel: every row measured, none refused"
	m=$(json_int matched $O/cmp-all.json)
	ge "$m" 10000 "compare, the whole kernel: $m functions"
	grep -o '"resolver":"[a-z-]*"\|"stall_ratio_to_libbpf":[0-9.]*\|"stall_ratio_to_floor":[0-9.]*\|"left_out":{[^}]*}' \
		$O/cmp-all.json | paste -sd' ' | sed 's/^/# /'
	sed 's/^/# /' $O/cmp-all.err
	is "$(probes_left)" 0 "compare, the whole kernel: no link left"
else
	skip "compare, the whole kernel" "run on the newest kernel only (minutes under emulation)"
fi

# a target the kernel refuses (not an ftrace location) is found, left out, reported
A=/sys/kernel/tracing/available_filter_functions_addrs
r=$(grep ' vfs_read$' $A | awk '{ print $1 }')
{ grep -E ' vfs_(read|write)$' $A; printf '%x fake_fn\n' $((0x$r + 0x40)); } > $O/refuse.txt
$K -p '*' --funcs-addrs $O/refuse.txt -o json > $O/refuse.json 2> $O/refuse.err
is "$?" 0 "refused target: the run still succeeds"
is "$(json_int attached $O/refuse.json)" 2 "refused target: the other two attach"
check "refused target: reported by name" grep -q '"excluded":\[{"name":"fake_fn","addr":"0x[0-9a-f]*","reason":"refused by the kernel (not an ftrace location)"}\]' $O/refuse.json

# kcore's one look-alike on x86-64: a jump label's NOP at a function's entry; the
# kernel has the last word, the function is left out and reported
la=$(sed -n 's/^lookalike: [0-9a-f]* \([^ ]*\).*/\1/p' $O/sets 2>/dev/null | head -n1)
if [ -n "$la" ]; then
	$K -p "$la" -p vfs_read --no-cache -o json > $O/la.json 2> $O/la.err
	is "$?" 0 "look-alike $la: the run still succeeds"
	is "$(json_int attached $O/la.json)" 1 "look-alike $la: vfs_read attaches"
	check "look-alike $la: reported as refused" grep -q "\"excluded\":\[{\"name\":\"$la\"" $O/la.json
	# by name, the kernel's own lookup refuses it: the link of names is halved
	# around it, the name left out and reported, the other attached
	$K -r kernel -p "$la" -p vfs_read -p vfs_write --no-cache -o json > $O/la-k.json 2> $O/la-k.err
	is "$?" 0 "look-alike $la by name: the run still succeeds"
	is "$(json_int attached $O/la-k.json)" 2 "look-alike $la by name: vfs_read and vfs_write attach"
	check "look-alike $la by name: left out, reported as the kernel's lookup refusing it" \
		grep -q "\"excluded\":\[{\"name\":\"$la\",.*not found by the kernel" $O/la-k.json
else
	# (x86-64's kernels have one; arm64's mark, "mov x9, x30", has none)
	skip "a look-alike left out" "kcore finds no function tracefs does not list on this kernel"
fi

# SIGINT in the middle of attaching: exit 130, nothing left attached
$K -p 'vfs_*' -r libbpf --link-per-func > $O/int.out 2> $O/int.err &
pid=$!
sleep 4
kill -INT $pid; wait $pid
is "$?" 130 "SIGINT while attaching: exit 130"
check "SIGINT while attaching: says so" grep -q 'interrupted while attaching' $O/int.err
is "$(probes_left)" 0 "SIGINT while attaching: no link left"

# --compare where the kernel refuses a function (a NOP of another kind at its
# start, which tracefs does not list): ksym's rows and the floor leave its address
# out; the rows that hand the kernel names (the kernel's; libbpf's, given plain
# names) find its name refused in their first run, leave it out, run again and name
# it; every row is measured
check "what kcore and tracefs each list (sources.sh) is there" grep -q '^count [1-9]' $O/sets
la=$(sed -n 's/^extra: [^ ]* \([^ ]*\).*/\1/p' $O/sets | head -n1)
if [ -n "$la" ]; then
	# (a whole table cached from tracefs' list, for this boot or for the build,
	# knows it is no function at all, and a warm row would say so: every row from
	# the kernel's symbols here)
	rm -rf /run/ksymattach /var/cache/ksymattach
	$K -p "$la" -p vfs_read --compare --rounds 1 -o json > $O/cmpref.json 2> $O/cmpref.err
	rc=$?
	check "compare, $la (no ftrace site) and vfs_read: every row measured, none refused" \
		sh -c "[ $rc -eq 0 ] && ! grep -q '\"refused\"' $O/cmpref.json &&
		       [ \$(grep -o '\"phases_ms\"' $O/cmpref.json | wc -l) -eq 6 ]"
	is "$(grep -o "\"left_out\":{\"count\":[0-9]*,\"names\":\"$la\"}" $O/cmpref.json | wc -l)" 2 \
		"compare: the kernel's and libbpf's rows left $la out and named it"
	is "$(probes_left)" 0 "compare with names left out: no link left"
else
	skip "compare with names left out" "kcore lists no function tracefs does not"
fi

# SIGINT during --compare: stops between runs, exit 130, nothing left attached
$K -p 'vfs_*' --compare --rounds 5 > $O/cmpint.out 2> $O/cmpint.err &
pid=$!
sleep 3
kill -INT $pid; wait $pid
is "$?" 130 "SIGINT during --compare: exit 130"
is "$(probes_left)" 0 "SIGINT during --compare: no link left"

# a module unloaded between resolving and attaching: resolved again, reported
insmod /modules/dummy.ko
KSYMATTACH_PAUSE=5 $K -p 'dummy:*' -p vfs_read -o json > $O/unl.json 2> $O/unl.err &
pid=$!
check "module race: paused after resolving" wait_for $O/unl.err 60 'pausing'
rmmod dummy
wait $pid
is "$?" 0 "module race: the run still succeeds"
is "$(json_int attached $O/unl.json)" 1 "module race: vfs_read attached"
check "module race: the module's functions reported as unloaded" \
	grep -q '"reason":"its module was unloaded"' $O/unl.json
is "$(probes_left)" 0 "module race: no link left"

# reloaded elsewhere in that window: attached at the new addresses
insmod /modules/dummy.ko
old=$(grep -m1 '	\[dummy\]$' /proc/kallsyms | cut -d' ' -f1)
KSYMATTACH_PAUSE=5 $K -p 'dummy:*' -p vfs_read -o json > $O/rel.json 2> $O/rel.err &
pid=$!
check "module reload: paused after resolving" wait_for $O/rel.err 60 'pausing'
# ifb takes the freed space, so dummy comes back somewhere else
rmmod dummy; insmod /modules/ifb.ko; insmod /modules/dummy.ko
new=$(grep -m1 '	\[dummy\]$' /proc/kallsyms | cut -d' ' -f1)
wait $pid
is "$?" 0 "module reload: the run succeeds"
if [ "$old" != "$new" ]; then
	want=$(( $(grep -c '\[dummy\]$' /sys/kernel/tracing/available_filter_functions_addrs) + 1 ))
	is "$(json_int attached $O/rel.json)" "$want" "module reload: attached at the new addresses"
	is "$(grep -o '"excluded":\[\]' $O/rel.json | wc -l)" 1 "module reload: nothing excluded"
	is "$(grep -o '"confirmed":true' $O/rel.json | wc -l)" "$want" \
		"module reload: the kernel's link confirms every function at its new address"
else
	check "module reload: dummy loaded before and after" sh -c "[ -n '$old' ] && [ -n '$new' ]"
	skip "module reload: attached at the new addresses" "dummy came back at the same address"
fi
rmmod dummy ifb
