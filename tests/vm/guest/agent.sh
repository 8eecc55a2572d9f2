# The example agent (examples/agent.c): libksym's addresses attach what libbpf's
# own resolution of the same glob attaches, and both count the same calls.
A=/host/bin/agent
want=$(count_traceable vfs_)
ge "${want:-0}" 10 "agent: the guest lists vfs_* functions ($want)"
$A 'vfs_*' > $O/agent-all.txt 2>&1
is "$?:$(sed -n 's/.*libksym: \([0-9]*\) functions attached.*/\1/p' $O/agent-all.txt)" "0:$want" \
	"agent: libksym attaches all $want traceable vfs_*"
$A -L 'vfs_*' > $O/agent-libbpf.txt 2>&1
is "$?:$(sed -n 's/.*libbpf: \([0-9]*\) functions attached.*/\1/p' $O/agent-libbpf.txt)" "0:$want" \
	"agent -L: libbpf's resolution attaches the same $want"
# the ksymattach cache serves the agent (what the same pattern matched in a run of
# ksymattach), and the agent's calls are counted
$K -l -p 'vfs_read' > /dev/null
$A 'vfs_read' 5 > $O/agent-warm.txt 2>&1 &
pid=$!
check "agent: attached from the cache" wait_for $O/agent-warm.txt 60 'resolve .*(cache)'
dd if=/dev/zero of=/dev/null bs=1 count=200 2>/dev/null
wait $pid
is "$?" 0 "agent: exits 0 after its seconds"
ge "$(sed -n 's/^agent: \([0-9]*\) hits/\1/p' $O/agent-warm.txt)" 200 "agent: vfs_read hits >= 200 reads"
is "$(probes_left)" 0 "agent: no link left after exit"
sed 's/^/# /' $O/agent-all.txt $O/agent-libbpf.txt $O/agent-warm.txt
