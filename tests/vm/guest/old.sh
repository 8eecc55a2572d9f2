# Linux without CONFIG_FPROBE (Debian 6.1): resolution works, attach fails clearly.
want=$(count_traceable vfs_)
ge "$want" 10 "the guest lists vfs_* functions ($want)"
$K -l -p 'vfs_*' -o json > $O/list.json
is "$(json_int matched $O/list.json)" "$want" "--list resolves every vfs_* via kallsyms"
check "names the source" grep -q '"source":"available_filter_functions+kallsyms"' $O/list.json
$K -p 'vfs_*' > $O/old.out 2> $O/old.err
rc=$?
check "attach exits nonzero" [ $rc -ne 0 ]
is "$(wc -l < $O/old.err)" 1 "one line on stderr"
check "the line names the missing kprobe.multi" grep -q 'no kprobe.multi support' $O/old.err
is "$(bpftool link show 2>/dev/null | grep -c .)" 0 "no link left"
$K -p vfs_read -m session > $O/old-sess.out 2> $O/old-sess.err
rc=$?
check "session on 6.1: nonzero exit" [ $rc -ne 0 ]
is "$(cat $O/old-sess.err)" "ksymattach: kprobe.session needs Linux >= 6.10, this is $(uname -r)" "session on 6.1: the one clear line"
