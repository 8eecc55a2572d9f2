# Traceable functions from the kernel's symbols + call sites in /proc/kcore (what a
# pattern with a prefix reads) against tracefs' own lists, on the whole kernel.
# (Each whole-kernel listing takes seconds under emulation: each source is
# listed once, and a listing's last line names the source it read.)
src=$(cold_source)
# (what is derived from the listings is scratch: kept in the guest's memory,
# not written back through the 9p share)
S=/tmp/sources; rm -rf $S; mkdir -p $S
# the whole table by default: ftrace's records named from the kernel's table, both
# read from its memory, where that table can be read there; else tracefs' list where
# it has addresses (exact: none of the kcore check's look-alikes), else the kernel's
# symbols checked in kcore
$K -l -p '*' --no-cache > $O/all-d.txt 2> $O/all-d.err
rd=$?
want="$src+kcore"
[ -e /sys/kernel/tracing/available_filter_functions_addrs ] && want=available_filter_functions_addrs
has_kmem && want=kmem+ftrace
check "the whole table by default, cold: from $want ($(tail -n1 $O/all-d.txt))" \
	sh -c "[ $rd -eq 0 ] && tail -n1 $O/all-d.txt | grep -q ' ($want)\$'"
$K -l -p 'vfs_*' -o json --no-cache > $O/vfs-d.json 2> $O/vfs-d.err
check "a prefix by default: the kernel's symbols ($src) checked in kcore" \
	grep -q "\"source\":\"$src+kcore\"" $O/vfs-d.json
# (the listings are named by m, k and f: the default's serves where the
# default is that source, and kallsyms' where the cold source is kallsyms)
if [ "$want" = "$src+kcore" ]; then
	m=all-d rs=$rd
else
	m=all-m
	$K -l -p '*' --no-cache --source $src 2> $O/$m.err > $O/$m.txt
	rs=$?
fi
check "--source $src: the kernel's symbols checked in kcore ($(tail -n1 $O/$m.txt), rc $rs)" \
	sh -c "[ $rs -eq 0 ] && tail -n1 $O/$m.txt | grep -q ' ($src+kcore)\$'"
sed '$d' $O/$m.txt > $S/all-m.txt.body
$K -l -p '*' --source tracefs --no-cache > $O/all-t.txt 2> $O/all-t.err
rt=$?
if [ "$src" = kallsyms ]; then
	k=$m rk=$rs
else
	k=all-k
	$K -l -p '*' --source kallsyms --no-cache > $O/$k.txt 2> $O/$k.err
	rk=$?
fi
# (the comparisons below need listings to compare: two failed runs list alike)
check "the whole kernel listed from tracefs and from kallsyms (rc $rt and $rk)" \
	sh -c "[ $rt -eq 0 ] && [ $rk -eq 0 ] && [ -s $O/all-t.txt ] && [ -s $O/$k.txt ]"
is "$(cat $O/all-d.err $O/vfs-d.err $O/$m.err $O/$k.err $O/all-t.err)" "" \
	"the listings without a warning"
# ftrace's records from memory list what tracefs does: every line where its list has
# addresses (the records' own), else every name (6.1's join gives functions' starts);
# the default listing is that one where the kernel's table is in memory
if [ "$want" = kmem+ftrace ]; then
	f=all-d rf=$rd
else
	f=all-f
	$K -l -p '*' --source ftrace --no-cache > $O/$f.txt 2> $O/$f.err
	rf=$?
fi
if has_kmem && [ -e /sys/kernel/tracing/available_filter_functions_addrs ]; then
	sed '$d' $O/all-t.txt > $S/all-t.cmp
	sed '$d' $O/$f.txt > $S/all-f.cmp
elif has_kmem; then
	sed '$d' $O/all-t.txt | awk '{ print $2, $3 }' | sort > $S/all-t.cmp
	sed '$d' $O/$f.txt | awk '{ print $2, $3 }' | sort > $S/all-f.cmp
fi
if has_kmem; then
	check "--source ftrace: ftrace's records in memory list what tracefs does ($(wc -l < $O/$f.txt) lines, rc $rf)" \
		sh -c "[ $rf -eq 0 ] && [ ! -s $O/$f.err ] && [ -s $S/all-f.cmp ] && cmp -s $S/all-t.cmp $S/all-f.cmp"
	diff $S/all-t.cmp $S/all-f.cmp | head -n 8 | sed 's/^/# ftrace: /'
else
	check "--source ftrace without the kernel's table in VMCOREINFO: refused, one line naming why (rc $rf)" \
		sh -c "[ $rf -ne 0 ] && [ \$(grep -c . $O/$f.err) -eq 1 ] && grep -q 'Linux >= 6.0' $O/$f.err"
	sed 's/^/# /' $O/$f.err
fi
sed '$d' $O/$k.txt > $S/all-k.txt.body
if [ "$src" = kallsyms ]; then
	skip "the whole kernel: the cold source lists what kallsyms does" "it is kallsyms here"
else
	# (once more where they differ: a site still being unpatched after the parts
	# before reads differently a moment later; what differed is printed)
	if ! cmp -s $S/all-k.txt.body $S/all-m.txt.body; then
		diff $S/all-k.txt.body $S/all-m.txt.body | head -n 8 | sed 's/^/# kmem, first try: /'
		sleep 2
		$K -l -p '*' --source kallsyms --no-cache 2>/dev/null | sed '$d' > $S/all-k.txt.body
		$K -l -p '*' --no-cache --source $src 2>/dev/null | sed '$d' > $S/all-m.txt.body
	fi
	check "the whole kernel: $src (the cold source) lists what kallsyms does ($(wc -l < $O/$k.txt) lines)" \
		sh -c "[ -s $S/all-k.txt.body ] && cmp -s $S/all-k.txt.body $S/all-m.txt.body"
	diff $S/all-k.txt.body $S/all-m.txt.body | head -n 8 | sed 's/^/# kmem: /'
fi
# What one listing has that the other lacks, by "addr name module" (6.1 has no
# addresses in its list: by name there), in one pass. It prints only those
# keys into $O/sets, with the counts: busybox's awk writes a line a
# system call, which takes many seconds over the whole kernel into the 9p
# share. attach.sh takes its look-alikes from the same file.
byaddr=0
[ -e /sys/kernel/tracing/available_filter_functions_addrs ] && byaddr=1
awk -v byaddr=$byaddr '
FNR == 1 { file++ }
!/^[0-9a-f]{16} / { next }
{ key = byaddr ? $1 " " $2 " " $3 : $2 " " $3 }
file == 1 { if (!(key in ts)) { ts[key] = 1; nt++ }; tname[$2] = 1; next }
key in ks { next }
{ ks[key] = 1 }
!(key in ts) {
	if (++ne <= 100) print "extra: " key
	# (no function of that name in tracefs: what attach.sh tries)
	if (byaddr && !($2 in tname) && ++nl <= 100) print "lookalike: " key
}
END {
	for (x in ts) if (!(x in ks) && ++nm <= 5) print "missing: " x
	print "count", nt + 0, nm + 0, ne + 0
}' $O/all-t.txt $O/$k.txt > $O/sets
set -- $(sed -n 's/^count //p' $O/sets)
tn=${1:-0} missing=${2:-?} extra=${3:-?}
# by name alone (no _addrs file), tracefs names a record by the function it is in:
# one inside a function that has none at its start (5.10: __bpf_tramp_exit) is
# listed under that function's name, which kcore rightly finds no site of
if [ $byaddr = 1 ]; then
	check "kcore finds every function tracefs lists ($tn; $missing missing)" \
		sh -c "[ $tn -gt 0 ] && [ '$missing' = 0 ]"
else
	check "kcore finds every function tracefs lists by name but a few ($missing of $tn)" \
		sh -c "[ $tn -gt 0 ] && [ '$missing' -le 5 ]"
fi
grep '^missing: ' $O/sets | sed 's/^/# /'
# a jump label compiled to the same NOP at a function's start looks like a site
# (the kernel refuses those and the attach engine leaves them out)
check "kcore's extras are a handful of look-alikes ($extra)" \
	sh -c "[ $tn -gt 0 ] && [ '$extra' -le 40 ]"
grep -m5 '^extra: ' $O/sets | sed 's/^/# /'

# while something traces them, the sites are calls to a trampoline: still found
want=$(count_traceable vfs_)
$K -p vfs_read -p vfs_write -d 120 > $O/bg.out 2> $O/bg.err &
pid=$!
check "a tracer is attached" wait_for $O/bg.err 60 'attached'
n=$($K -l -p 'vfs_*' --source kallsyms --no-cache | awk '/^[0-9a-f]{16} / { n++ } END { print n + 0 }')
is "$n" "$want" "vfs_* while vfs_read and vfs_write are traced"
# the kernel's table in memory lists no trampoline: a call to one is still a site
if has_kmem; then
	$K -l -p 'vfs_*' --source kallsyms --no-cache | sed '$d' > $O/tr.k
	$K -l -p 'vfs_*' --source kmem --no-cache | sed '$d' > $O/tr.m
	check "vfs_* while traced: kmem lists what kallsyms does ($(wc -l < $O/tr.k) lines)" \
		sh -c "[ -s $O/tr.k ] && cmp -s $O/tr.k $O/tr.m"
else
	skip "vfs_* while traced: kmem lists what kallsyms does" "no kallsyms in VMCOREINFO (Linux 6.0)"
fi
kill -INT $pid; wait $pid
is "$?" 130 "the tracer: SIGINT ends it, 130"
