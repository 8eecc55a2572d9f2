# Linux without kprobe.multi (Debian's 6.1, built without CONFIG_FPROBE; 5.10,
# before it): resolution works; attach falls back to classic kprobes, or with
# --no-fallback fails clearly.
want=$(count_traceable vfs_)
ge "$want" 10 "the guest lists vfs_* functions ($want)"
$K -l -p 'vfs_*' -o json --source tracefs > $O/list.json
# tracefs' list of sites where the kernel has it (Linux 6.5 on), else names joined with kallsyms
src=available_filter_functions+kallsyms
[ -e /sys/kernel/tracing/available_filter_functions_addrs ] && src=available_filter_functions_addrs
is "$(json_int matched $O/list.json)" "$want" "--list resolves every vfs_* from tracefs ($src)"
check "names the source ($src)" grep -q "\"source\":\"$src\"" $O/list.json
$K -p 'vfs_*' --no-fallback > $O/old.out 2> $O/old.err
rc=$?
check "--no-fallback: attach exits nonzero" [ $rc -ne 0 ]
is "$(wc -l < $O/old.err)" 1 "--no-fallback: one line on stderr"
check "--no-fallback: the line names the missing kprobe.multi" grep -q 'has no kprobe.multi (Linux >= 5.18' $O/old.err
is "$(probes_left)" 0 "no link left"

# the default falls back to classic kprobes, and the counts are right there too
N=300
$K -p vfs_read -p vfs_write -d 120 -o json > $O/fb.json 2> $O/fb.err &
pid=$!
check "fallback: announces it is attached" wait_for $O/fb.err 60 'attached'
check "fallback: warns it uses classic kprobes" grep -q 'no kprobe.multi; attaching classic kprobes to 2 functions' $O/fb.err
is "$(kprobes_attached)" 2 "fallback: two kprobes with the program while attached"
dd if=/dev/zero of=/dev/null bs=1 count=$N 2>/dev/null
kill -INT $pid; wait $pid
is "$?" 130 "fallback: SIGINT ends it, 130"
check "fallback: reported as such" grep -q '"fallback":true' $O/fb.json
ge "$(json_hits vfs_read $O/fb.json)" $N "fallback: vfs_read hits >= $N reads"
ge "$(json_hits vfs_write $O/fb.json)" $N "fallback: vfs_write hits >= $N writes"
is "$(probes_left)" 0 "fallback: no link left after exit"
$K -p vfs_read -m session > $O/old-sess.out 2> $O/old-sess.err
rc=$?
check "session: nonzero exit" [ $rc -ne 0 ]
# what the kernel lacks: the session kfuncs (before 6.10), or kprobe.multi itself
# (arm64's 6.12 has the kfuncs, built without CONFIG_FPROBE)
if grep -q ' bpf_session_cookie$' /proc/kallsyms; then
	want_err="ksymattach: kernel $(uname -r) has no kprobe.multi (Linux >= 5.18 built with CONFIG_FPROBE has it)"
else
	want_err="ksymattach: kprobe.session needs Linux >= 6.10: kernel $(uname -r) has none (no bpf_session_cookie kfunc)"
fi
is "$(cat $O/old-sess.err)" "$want_err" "session: the one clear line"
# the resolvers that hand the kernel names: one classic kprobe per name, which
# the kernel resolves (-r libbpf: libbpf's own bpf_program__attach_kprobe_opts)
for r in kernel libbpf; do
	$K -p vfs_read -p vfs_write -r $r -d 120 -o json > $O/fb-$r.json 2> $O/fb-$r.err &
	pid=$!
	check "-r $r: attached" wait_for $O/fb-$r.err 60 'attached'
	is "$(kprobes_attached)" 2 "-r $r: two kprobes with the program while attached"
	dd if=/dev/zero of=/dev/null bs=1 count=$N 2>/dev/null
	kill -INT $pid; wait $pid
	is "$?" 130 "-r $r: SIGINT ends it, 130"
	ge "$(json_hits vfs_read $O/fb-$r.json)" $N "-r $r: vfs_read hits >= $N reads"
	is "$(probes_left)" 0 "-r $r: no link left after exit"
	# by name: the kprobe's name in config1, no address in config2 (ksym: the reverse)
	strace -f -qq -v -e trace=perf_event_open -o $O/pe-$r.trace $K -p vfs_read -p vfs_write -r $r \
		> /dev/null 2>&1
	is "$(grep -c 'config1=0x[0-9a-f]*, config2=0,' $O/pe-$r.trace)" 2 "-r $r: both kprobes made by name"
done
strace -f -qq -v -e trace=perf_event_open -o $O/pe-ksym.trace $K -p vfs_read -p vfs_write > /dev/null 2>&1
is "$(grep -c 'config1=0, config2=0xffff[0-9a-f]*,' $O/pe-ksym.trace)" 2 "ksym: both kprobes made by address"
# a name several functions have: the kernel refuses it by name, left out as such
dups=$(sort /sys/kernel/tracing/available_filter_functions |
	awk '$1 == last && !($1 in seen) { seen[$1]; print $1 } { last = $1 }' | grep '^[a-z].*_show$' |
	head -n 2)
set --; for d in $dups; do set -- "$@" -p "$d"; done
$K "$@" -p vfs_read -r kernel -o json > $O/dup.json 2> $O/dup.err
rc=$?
check "-r kernel, names several functions have ($(echo $dups)): left out as ambiguous, vfs_read attached" sh -c \
	"[ $rc -eq 0 ] && [ -n '$dups' ] && [ '$(json_int attached $O/dup.json)' = 1 ] &&
	 grep -q '\"reason\":\"by name, ambiguous' $O/dup.json"
# --compare: every row by classic kprobes (ksym and the floor by address, kernel
# and libbpf by name), the fallback said once, nothing left attached
$K -p 'vfs_*' --compare --rounds 1 -o json > $O/cmp.json 2> $O/cmp.err
rc=$?
rows=$(grep -o '"resolver":"[a-z-]*"' $O/cmp.json | sed 's/.*:"//; s/"//' | tr '\n' ' ')
check "--compare without kprobe.multi: every row, classic kprobes (rows: $rows)" sh -c \
	"[ $rc -eq 0 ] && grep -q '\"fallback\":true' $O/cmp.json &&
	 [ '$rows' = 'ksym-cold ksym-warm ksym-boot kernel libbpf floor ' ] &&
	 grep -q '\"kernel_extra_us_per_name\":' $O/cmp.json"
is "$(grep -c 'no kprobe.multi' $O/cmp.err)" 1 "--compare without kprobe.multi: the fallback said once"
grep -o '"resolver":"[a-z-]*"\|"stall_ms":[0-9.]*\|"kernel_extra_us_per_name":[-0-9.]*' $O/cmp.json |
	tr '\n' ' ' | sed 's/^/# /'; echo
is "$(probes_left)" 0 "--compare without kprobe.multi: no link left"
