# Linux without CONFIG_FPROBE (Debian 6.1): resolution works, attach fails clearly.
want=$(count_traceable vfs_)
ge "$want" 10 "the guest lists vfs_* functions ($want)"
$K -l -p 'vfs_*' -o json --source tracefs > $O/list.json
is "$(json_int matched $O/list.json)" "$want" "--list resolves every vfs_* by the names-kallsyms join"
check "names the source" grep -q '"source":"available_filter_functions+kallsyms"' $O/list.json
$K -p 'vfs_*' --no-fallback > $O/old.out 2> $O/old.err
rc=$?
check "--no-fallback: attach exits nonzero" [ $rc -ne 0 ]
is "$(wc -l < $O/old.err)" 1 "--no-fallback: one line on stderr"
check "--no-fallback: the line names the missing kprobe.multi" grep -q 'no kprobe.multi support' $O/old.err
is "$(bpftool link show 2>/dev/null | grep -c .)" 0 "no link left"

# the default falls back to classic kprobes, and the counts are right there too
N=300
$K -p vfs_read -p vfs_write -d 120 -o json > $O/fb.json 2> $O/fb.err &
pid=$!
check "fallback: announces it is attached" wait_for $O/fb.err 60 'attached'
check "fallback: warns it uses classic kprobes" grep -q 'no kprobe.multi; attaching 2 classic kprobes' $O/fb.err
is "$(bpftool link show 2>/dev/null | grep -c perf_event)" 2 "fallback: two perf-event links while attached"
dd if=/dev/zero of=/dev/null bs=1 count=$N 2>/dev/null
kill -INT $pid; wait $pid
check "fallback: reported as such" grep -q '"fallback":true' $O/fb.json
ge "$(json_hits vfs_read $O/fb.json)" $N "fallback: vfs_read hits >= $N reads"
ge "$(json_hits vfs_write $O/fb.json)" $N "fallback: vfs_write hits >= $N writes"
is "$(bpftool link show 2>/dev/null | grep -c .)" 0 "fallback: no link left after exit"
$K -p vfs_read -m session > $O/old-sess.out 2> $O/old-sess.err
rc=$?
check "session on 6.1: nonzero exit" [ $rc -ne 0 ]
is "$(cat $O/old-sess.err)" "ksymattach: kprobe.session needs Linux >= 6.10, this is $(uname -r)" "session on 6.1: the one clear line"
