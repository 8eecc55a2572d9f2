# What a fleet engineer sees first: `bpftool link show`, the newest bpftool
# Debian ships (bpftool-new), names every function of a ksymattach link, from
# every source a run may take them from, and of the example agent's link;
# stock libbpf's link is shown as it is.
want=$(count_traceable vfs_)
B=bpftool-new
check "bpftool: the newest bpftool runs ($($B version 2>&1 | sed -n 1p))" sh -c "$B version > /dev/null"
# named LOG: how many of bpftool's kprobe.multi entries name a vfs_* function
# (an entry it cannot name shows the address and cookie alone)
named() {
	$B link show > $O/bt-links.txt 2>&1
	awk '$1 ~ /^[0-9a-f]+$/ && length($1) >= 16 && $3 ~ /^vfs_/ { n++ } END { print n + 0 }' \
		$O/bt-links.txt
}
# attached_named WHAT ARGS...: ksymattach ARGS while attached, bpftool's count
attached_named() {
	what=$1; shift
	rm -f $O/bt-run.err	# (the last run's 'attached' is no answer)
	$K "$@" -p 'vfs_*' -d 60 > $O/bt-run.out 2> $O/bt-run.err &
	bt_pid=$!
	if wait_for $O/bt-run.err 60 'attached'; then
		named
		cp $O/bt-links.txt $O/bt-links-$what.txt
	else
		echo "not attached: $(head -c 200 $O/bt-run.err)"
	fi
	kill -INT $bt_pid 2>/dev/null
	wait $bt_pid 2>/dev/null
}
rm -rf /run/ksymattach /var/cache/ksymattach
is "$(attached_named cold)" "$want" "bpftool: a cold run's link names all $want vfs_* functions"
sed -n '1,/func/p' $O/bt-links.txt | sed 's/^/# /'
is "$(attached_named warm)" "$want" "bpftool: a warm run's link (the /run cache) names them all"
rm -rf /run/ksymattach
is "$(attached_named boot)" "$want" "bpftool: a boot's first run (the build cache) names them all"
is "$(attached_named session -m session)" "$want" "bpftool: a kprobe.session link names them all"
is "$(attached_named kernel -r kernel)" "$want" "bpftool: the kernel resolver's link (names) names them all"
n=$(attached_named libbpf -r libbpf)
echo "# bpftool: stock libbpf's link names $n of $want (it hands the kernel ftrace sites)"
# the example agent: libksym's sites call
rm -f $O/bt-agent.txt
/host/bin/agent 'vfs_*' 30 > $O/bt-agent.txt 2>&1 &
bt_pid=$!
if wait_for $O/bt-agent.txt 60 'functions attached'; then n=$(named); else n="not attached"; fi
kill $bt_pid 2>/dev/null
wait $bt_pid 2>/dev/null
is "$n" "$want" "bpftool: the example agent's link (ksym_db__sites()) names all $want"
is "$(probes_left)" 0 "bpftool: nothing left attached"
