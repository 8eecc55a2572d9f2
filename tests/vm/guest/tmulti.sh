# fentry.multi, fexit.multi and fsession.multi: the tracing_multi link (Linux 7.2), which takes
# BTF ids, a link per BTF object. The kernel's own account of each link (its
# fdinfo) must hold exactly the functions ksymattach says it attached, and those
# must be the traceable functions the pattern matches that BTF has; what it
# leaves out it names. Where the kernel lacks the link, one line says so.
tm_has=
grep -q ' bpf_tracing_multi_attach$' /proc/kallsyms &&
	grep -q ' bpf_trampoline_multi_attach$' /proc/kallsyms && tm_has=1
B=bpftool; command -v bpftool-new > /dev/null && B=bpftool-new

# tm_run NAME ARGS...: ksymattach ARGS attached while a workload reads and
# writes; the link's fdinfo (each function's name, one a line) in $O/tm-NAME.fns,
# the report in $O/tm-NAME.json
tm_run() {
	n=$1; shift
	rm -f $O/tm-$n.err $O/tm-$n.fns
	$K "$@" -d 60 -o json > $O/tm-$n.json 2> $O/tm-$n.err &
	tm_pid=$!
	if wait_for $O/tm-$n.err 60 'attached'; then
		for f in /proc/$tm_pid/fdinfo/*; do
			grep -qE '^attach_type:[[:space:]]+(59|60|61)$' $f 2>/dev/null || continue
			awk 'f { sub(/\+.*/, "", $4); print $4 } /^obj-id/ { f = 1 }' $f
		done | sort > $O/tm-$n.fns
		i=0
		while [ $i -lt 20 ]; do cat /proc/version /proc/self/status > /dev/null; i=$((i + 1)); done
	fi
	kill -INT $tm_pid 2>/dev/null
	wait $tm_pid
	tm_rc=$?
}

if [ -z "$tm_has" ]; then
	why="no tracing_multi link"
	grep -q ' bpf_tracing_multi_attach$' /proc/kallsyms && why="not on this architecture"
	one_line_error "tmulti: -m fentry refused in one line ($why)" "$why" \
		$K -m fentry -p 'vfs_*' -d 1
	one_line_error "tmulti: -m fexit refused in one line ($why)" "$why" \
		$K -m fexit -p 'vfs_read' -d 1
	one_line_error "tmulti: -m fsession refused in one line ($why)" "$why" \
		$K -m fsession -p 'vfs_read' -d 1
	is "$(probes_left)" 0 "tmulti: nothing left attached"
else
	# what the link must hold: the traceable vfs_* names that vmlinux's BTF has
	$B btf dump file /sys/kernel/btf/vmlinux 2>/dev/null |
		sed -n "s/^\[[0-9]*\] FUNC '\(vfs_[^']*\)'.*/\1/p" | sort -u > $O/tm-btf.txt
	grep '^[0-9a-f]* vfs_[^ ]*$' /sys/kernel/tracing/available_filter_functions_addrs |
		awk '{ print $2 }' | sort -u > $O/tm-trace.txt
	grep -Fxf $O/tm-btf.txt $O/tm-trace.txt > $O/tm-want.txt
	want=$(wc -l < $O/tm-want.txt)
	tm_run fentry -m fentry -p 'vfs_*'
	is "$tm_rc" 130 "tmulti: -m fentry -p 'vfs_*' attaches, and SIGINT ends it (130)"
	is "$(json_int attached $O/tm-fentry.json)" "$want" \
		"tmulti: it attaches the $want traceable vfs_* functions BTF has"
	if cmp -s $O/tm-want.txt $O/tm-fentry.fns; then
		ok "tmulti: the kernel's link holds exactly those functions, by name"
	else
		not_ok "tmulti: the kernel's link holds exactly those functions, by name"
		diff $O/tm-want.txt $O/tm-fentry.fns | head -n 10 | sed 's/^/# /'
	fi
	is "$(json_int links $O/tm-fentry.json)" 1 "tmulti: in one link (vmlinux's)"
	ge "$(json_hits vfs_read $O/tm-fentry.json)" 1 "tmulti: fentry.multi counts vfs_read"
	is "$(probes_left)" 0 "tmulti: nothing left attached after fentry.multi"

	# again: the ids and verdicts from this boot's /run file of these
	# patterns, no BTF or kallsyms read; the same link, function for function
	cp $O/tm-fentry.fns $O/tm-fentry1.fns
	tm_run fentry -m fentry -p 'vfs_*'
	check "tmulti: a second run keeps its BTF answers in /run" \
		sh -c 'ls /run/ksymattach/btf-* > /dev/null'
	if [ "$tm_rc" = 130 ] && cmp -s $O/tm-fentry1.fns $O/tm-fentry.fns; then
		ok "tmulti: ... and its link holds the very same functions"
	else
		not_ok "tmulti: ... and its link holds the very same functions (rc $tm_rc)"
		diff $O/tm-fentry1.fns $O/tm-fentry.fns | head -n 10 | sed 's/^/# /'
	fi
	# a boot's first run (no /run): vmlinux's answers from the build cache
	rm -rf /run/ksymattach
	tm_run fentry -m fentry -p 'vfs_*' -v
	check "tmulti: a boot's first run takes the build cache's BTF answers" \
		grep -q 'BTF ids and verdicts from /var/cache/ksymattach/btf-' $O/tm-fentry.err
	if [ "$tm_rc" = 130 ] && cmp -s $O/tm-fentry1.fns $O/tm-fentry.fns; then
		ok "tmulti: ... and its link holds the very same functions"
	else
		not_ok "tmulti: ... and its link holds the very same functions (rc $tm_rc)"
		diff $O/tm-fentry1.fns $O/tm-fentry.fns | head -n 10 | sed 's/^/# /'
	fi

	# --compare: every row of this mode; the kernel row has none (the kernel
	# looks up every id's name in every row), its lookups measured instead
	$K -m fentry -p 'vfs_*' --compare --rounds 1 -o json > $O/tm-cmp.json 2> $O/tm-cmp.err
	is "$?" 0 "tmulti: --compare -m fentry -p 'vfs_*' runs ($(head -c 200 $O/tm-cmp.err))"
	for r in ksym-cold ksym-warm ksym-boot floor; do
		check "tmulti: --compare: the $r row attached" \
			grep -q "\"resolver\":\"$r\",\"phases_ms\"" $O/tm-cmp.json
	done
	check "tmulti: --compare: the kernel row is absent, and says why" \
		grep -q '"resolver":"kernel","absent":"a tracing_multi link takes BTF ids' $O/tm-cmp.json
	# libbpf 1.8 walks the BTF with the glob and checks no ftrace site: vfs_*
	# has functions without one, so the kernel may refuse its link; said if so
	if grep -q '"resolver":"libbpf","phases_ms"' $O/tm-cmp.json ||
		grep -q '"resolver":"libbpf","refused":"libbpf 1.8.s link of .vfs_\*.: ' $O/tm-cmp.json; then
		ok "tmulti: --compare: libbpf 1.8's row attached, or its refusal is said"
	else
		not_ok "tmulti: --compare: libbpf 1.8's row attached, or its refusal is said"
	fi
	sed -n 's/.*\("resolver":"libbpf","refused":"[^"]*"\).*/# \1/p' $O/tm-cmp.json
	ge "$(sed -n 's/.*"kernel_lookups":{"calls":\([0-9]*\).*/\1/p' $O/tm-cmp.json)" "$want" \
		"tmulti: --compare: the kernel looked up a name for each of the floor's $want ids"
	# names, not a glob: libbpf 1.8 finds their ids in its BTF, one link
	$K -m fexit -p vfs_read -p vfs_write --compare --rounds 1 > $O/tm-cmp2.txt 2>&1
	is "$?" 0 "tmulti: --compare -m fexit of two names runs"
	check "tmulti: --compare of names: libbpf 1.8's row attaches them" \
		sh -c "grep '^stall ' $O/tm-cmp2.txt | grep -qv refused"
	sed 's/^/# /' $O/tm-cmp2.txt
	is "$(probes_left)" 0 "tmulti: nothing left attached after --compare"

	tm_run fexit -m fexit -p 'vfs_read' -p 'do_exit'
	is "$tm_rc" 130 "tmulti: -m fexit attaches, and SIGINT ends it (130)"
	ge "$(json_hits vfs_read $O/tm-fexit.json)" 1 "tmulti: fexit.multi counts vfs_read's returns"
	if grep -q '"name":"do_exit","addr":"[^"]*","reason":"it never returns"' $O/tm-fexit.json; then
		ok "tmulti: fexit leaves out do_exit, which never returns"
	else
		not_ok "tmulti: fexit leaves out do_exit, which never returns"
	fi
	is "$(cat $O/tm-fexit.fns)" vfs_read "tmulti: the fexit link holds vfs_read alone"

	# fsession.multi: entry and return paired, a latency histogram (its libbpf object)
	rm -f $O/tm-fs.err
	$K -m fsession -p vfs_read -d 120 -o json > $O/tm-fs.json 2> $O/tm-fs.err &
	tm_pid=$!
	check "tmulti: -m fsession announces it is attached" wait_for $O/tm-fs.err 60 'attached'
	dd if=/dev/zero of=/dev/null bs=1 count=400 2>/dev/null
	kill -INT $tm_pid; wait $tm_pid
	is "$?" 130 "tmulti: -m fsession: SIGINT ends it, 130"
	calls=$(json_int calls $O/tm-fs.json); rets=$(json_int returns $O/tm-fs.json)
	ge "$calls" 400 "tmulti: fsession counts vfs_read's calls (>= 400 reads)"
	check "tmulti: fsession's returns match its calls ($rets of $calls)" \
		sh -c "[ '$rets' -ge $((calls - 2)) ] && [ '$rets' -le '$calls' ]"
	check "tmulti: fsession gives a latency histogram" \
		grep -q '"latency_ns_log2":\[[0-9,]*[1-9]' $O/tm-fs.json

	# a function a trampoline recurses on (it panicked 7.3.4 in a tracing_multi link)
	tm_run unsafe -m fentry -p 'rcu_read_unlock_special' -p 'vfs_write'
	is "$tm_rc" 130 "tmulti: rcu_read_unlock_special asked for: no panic"
	is "$(cat $O/tm-unsafe.fns)" vfs_write "tmulti: ... left out, vfs_write attached"

	# a module's functions: a link of its own BTF object's ids
	mod_was=; grep -q '^dummy ' /proc/modules && mod_was=1
	[ -n "$mod_was" ] || insmod /modules/dummy.ko
	$B btf dump file /sys/kernel/btf/dummy base /sys/kernel/btf/vmlinux 2>/dev/null |
		sed -n "s/^\[[0-9]*\] FUNC '\([^']*\)'.*/\1/p" | sort -u > $O/tm-mbtf.txt
	grep ' \[dummy\]$' /sys/kernel/tracing/available_filter_functions_addrs |
		awk '{ print $2 }' | sort -u > $O/tm-mtrace.txt
	grep -Fxf $O/tm-mbtf.txt $O/tm-mtrace.txt > $O/tm-mwant.txt
	(cat $O/tm-mwant.txt; echo vfs_read) | sort > $O/tm-bothwant.txt
	ge "$(wc -l < $O/tm-mwant.txt)" 1 "tmulti: dummy has traceable BTF functions"
	# (fentry twice: the second from /run's answers, the module's ids among them)
	for m in fentry fsession fentry; do
		tm_run mod-$m -m $m -p 'dummy:*' -p 'vfs_read'
		is "$tm_rc" 130 "tmulti: $m: a module's functions and vmlinux's attach"
		is "$(json_int links $O/tm-mod-$m.json)" 2 \
			"tmulti: $m: ... in two links, one per BTF object"
		if cmp -s $O/tm-bothwant.txt $O/tm-mod-$m.fns; then
			ok "tmulti: $m: the links hold dummy's $(wc -l < $O/tm-mwant.txt) and vfs_read"
		else
			not_ok "tmulti: $m: the links hold dummy's functions and vfs_read, by name"
			diff $O/tm-bothwant.txt $O/tm-mod-$m.fns | head -n 10 | sed 's/^/# /'
		fi
	done
	[ -n "$mod_was" ] || rmmod dummy
	is "$(probes_left)" 0 "tmulti: nothing left attached after the module's links"

	# nothing a link can take: one line that says so
	one_line_error "tmulti: a pattern with nothing attachable by BTF id: one line" \
		"attached by BTF id" $K -m fentry -p 'vfs_statfs.part.*' -d 1

	# the whole kernel, in one link
	tm_run all -m fentry -p '*'
	is "$tm_rc" 130 "tmulti: the whole kernel attaches by BTF id"
	ge "$(json_int attached $O/tm-all.json)" 10000 \
		"tmulti: ... $(json_int attached $O/tm-all.json) functions of $(json_int matched $O/tm-all.json)"
	is "$(wc -l < $O/tm-all.fns)" "$(json_int attached $O/tm-all.json)" \
		"tmulti: ... the kernel's links hold as many as it says"
	sed -n 's/.*"phases_us":{\([^}]*\)}.*/# whole kernel, phases (us): \1/p' $O/tm-all.json
	is "$(probes_left)" 0 "tmulti: nothing left attached after the whole kernel"

	# SIGINT while the kernel makes the whole kernel's link (one bpf() call of
	# tens of seconds here): 130, and the link made is closed
	$K -m fentry -p '*' -d 60 > /dev/null 2> $O/tm-int.err &
	tm_pid=$!
	sleep 8
	kill -INT $tm_pid 2>/dev/null
	t0=$(cut -d' ' -f1 /proc/uptime)
	wait $tm_pid
	rc=$?
	t1=$(cut -d' ' -f1 /proc/uptime)
	is "$rc" 130 "tmulti: SIGINT 8 s into the whole kernel's attach: 130"
	echo "# it exited $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s after the signal: $(grep -v warning $O/tm-int.err | head -c 200)"
	is "$(probes_left)" 0 "tmulti: ... nothing left attached"
fi
