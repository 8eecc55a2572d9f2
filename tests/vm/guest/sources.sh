# Traceable functions from the kernel's symbols + call sites in /proc/kcore (what a
# pattern with a prefix reads) against tracefs' own lists, on the whole kernel.
# (Each whole-kernel listing takes seconds under emulation: each source is
# listed once, and a listing's last line names the source it read.)
src=$(cold_source)
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
# (the default's listing, where the default is this source)
if [ "$want" = "$src+kcore" ]; then
	cp $O/all-d.txt $O/all-m.txt; cp $O/all-d.err $O/all-m.err; rs=$rd
else
	$K -l -p '*' --no-cache --source $src 2> $O/all-m.err > $O/all-m.txt
	rs=$?
fi
check "--source $src: the kernel's symbols checked in kcore ($(tail -n1 $O/all-m.txt), rc $rs)" \
	sh -c "[ $rs -eq 0 ] && tail -n1 $O/all-m.txt | grep -q ' ($src+kcore)\$'"
sed '$d' $O/all-m.txt > $O/all-m.txt.body
$K -l -p '*' --source tracefs --no-cache > $O/all-t.txt 2> $O/all-t.err
rt=$?
if [ "$src" = kallsyms ]; then
	cp $O/all-m.txt $O/all-k.txt; cp $O/all-m.err $O/all-k.err; rk=$rs
else
	$K -l -p '*' --source kallsyms --no-cache > $O/all-k.txt 2> $O/all-k.err
	rk=$?
fi
# (the comparisons below need listings to compare: two failed runs list alike)
check "the whole kernel listed from tracefs and from kallsyms (rc $rt and $rk)" \
	sh -c "[ $rt -eq 0 ] && [ $rk -eq 0 ] && [ -s $O/all-t.txt ] && [ -s $O/all-k.txt ]"
is "$(cat $O/all-d.err $O/vfs-d.err $O/all-m.err $O/all-k.err $O/all-t.err)" "" \
	"the listings without a warning"
# ftrace's records from memory list what tracefs does: every line where its list has
# addresses (the records' own), else every name (6.1's join gives functions' starts);
# the default listing is that one where the kernel's table is in memory
if [ "$want" = kmem+ftrace ]; then
	cp $O/all-d.txt $O/all-f.txt; cp $O/all-d.err $O/all-f.err; rf=$rd
else
	$K -l -p '*' --source ftrace --no-cache > $O/all-f.txt 2> $O/all-f.err
	rf=$?
fi
if has_kmem && [ -e /sys/kernel/tracing/available_filter_functions_addrs ]; then
	sed '$d' $O/all-t.txt > $O/all-t.cmp
	sed '$d' $O/all-f.txt > $O/all-f.cmp
elif has_kmem; then
	sed '$d' $O/all-t.txt | awk '{ print $2, $3 }' | sort > $O/all-t.cmp
	sed '$d' $O/all-f.txt | awk '{ print $2, $3 }' | sort > $O/all-f.cmp
fi
if has_kmem; then
	check "--source ftrace: ftrace's records in memory list what tracefs does ($(wc -l < $O/all-f.txt) lines, rc $rf)" \
		sh -c "[ $rf -eq 0 ] && [ ! -s $O/all-f.err ] && [ -s $O/all-f.cmp ] && cmp -s $O/all-t.cmp $O/all-f.cmp"
	diff $O/all-t.cmp $O/all-f.cmp | head -n 8 | sed 's/^/# ftrace: /'
else
	check "--source ftrace without the kernel's table in VMCOREINFO: refused, one line naming why (rc $rf)" \
		sh -c "[ $rf -ne 0 ] && [ \$(grep -c . $O/all-f.err) -eq 1 ] && grep -q 'Linux >= 6.0' $O/all-f.err"
	sed 's/^/# /' $O/all-f.err
fi
sed '$d' $O/all-k.txt > $O/all-k.txt.body
if [ "$src" = kallsyms ]; then
	skip "the whole kernel: the cold source lists what kallsyms does" "it is kallsyms here"
else
	# (once more where they differ: a site still being unpatched after the parts
	# before reads differently a moment later; what differed is printed)
	if ! cmp -s $O/all-k.txt.body $O/all-m.txt.body; then
		diff $O/all-k.txt.body $O/all-m.txt.body | head -n 8 | sed 's/^/# kmem, first try: /'
		sleep 2
		$K -l -p '*' --source kallsyms --no-cache 2>/dev/null | sed '$d' > $O/all-k.txt.body
		$K -l -p '*' --no-cache --source $src 2>/dev/null | sed '$d' > $O/all-m.txt.body
	fi
	check "the whole kernel: $src (the cold source) lists what kallsyms does ($(wc -l < $O/all-k.txt) lines)" \
		sh -c "[ -s $O/all-k.txt.body ] && cmp -s $O/all-k.txt.body $O/all-m.txt.body"
	diff $O/all-k.txt.body $O/all-m.txt.body | head -n 8 | sed 's/^/# kmem: /'
fi
# "addr name module" lines; 6.1 has no addresses in its list: names there
if [ -e /sys/kernel/tracing/available_filter_functions_addrs ]; then
	f='$1 " " $2 " " $3'
else
	f='$2 " " $3'
fi
# each listing's keys, once each, into t.set and k.set (attach.sh reads them
# too), and what one lists that the other does not: in one pass, since each
# pass of busybox's sort or awk over the whole kernel takes seconds here
awk -v t=$O/t.set -v k=$O/k.set "
FNR == 1 { file++ }
!/^[0-9a-f]{16} / { next }
{ key = $f }
file == 1 { if (!(key in ts)) { ts[key] = 1; print key > t }; next }
!(key in ks) { ks[key] = 1; print key > k }
END {
	for (x in ts) if (!(x in ks) && ++nm <= 5) print \"missing: \" x
	for (x in ks) if (!(x in ts) && ++ne <= 5) print \"extra: \" x
	print \"count\", nm + 0, ne + 0
}" $O/all-t.txt $O/all-k.txt > $O/sets
missing=$(sed -n 's/^count \([0-9]*\) .*/\1/p' $O/sets)
extra=$(sed -n 's/^count [0-9]* //p' $O/sets)
# by name alone (no _addrs file), tracefs names a record by the function it is in:
# one inside a function that has none at its start (5.10: __bpf_tramp_exit) is
# listed under that function's name, which kcore rightly finds no site of
if [ -e /sys/kernel/tracing/available_filter_functions_addrs ]; then
	check "kcore finds every function tracefs lists ($(wc -l < $O/t.set); $missing missing)" \
		sh -c "[ -s $O/t.set ] && [ -s $O/k.set ] && [ $missing -eq 0 ]"
else
	check "kcore finds every function tracefs lists by name but a few ($missing of $(wc -l < $O/t.set))" \
		sh -c "[ -s $O/t.set ] && [ -s $O/k.set ] && [ $missing -le 5 ]"
fi
grep '^missing: ' $O/sets | sed 's/^/# /'
# a jump label compiled to the same NOP at a function's start looks like a site
# (the kernel refuses those and the attach engine leaves them out)
check "kcore's extras are a handful of look-alikes ($extra)" \
	sh -c "[ -s $O/t.set ] && [ -s $O/k.set ] && [ $extra -le 40 ]"
grep '^extra: ' $O/sets | sed 's/^/# /'

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
