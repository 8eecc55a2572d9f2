# Linux >= 6.5 with kprobe.multi (6.12): real attach, counts, cleanup.
want=$(count_traceable vfs_)
ge "$want" 10 "the guest lists vfs_* functions ($want)"

$K -l -p 'vfs_*' -o json > $O/list.json
is "$(json_int matched $O/list.json)" "$want" "--list matches every traceable vfs_* function"

rm -rf /run/ksymattach /var/cache/ksymattach	# cold: no build cache either
$K -p 'vfs_*' -o json > $O/attach0.json 2> $O/attach0.err
rc=$?
is $rc 0 "-d 0: attach, report, detach exits 0"
is "$(json_int attached $O/attach0.json)" "$want" "attached count equals the traceable vfs_* count"
ge "$(json_int cache $O/attach0.json)" 1 "first run writes the cache once attached (cache phase, us)"
# the first run read only what vfs_* can match, and kept only that
check "the first run keeps what vfs_* matched, not a whole table" sh -c \
	"ls /run/ksymattach/funcs-* > /dev/null && ! ls /run/ksymattach/funcs > /dev/null 2>&1"
# a run that reads the whole table keeps it (read fresh from the kernel's table
# and checked in kcore, the cache says kallsyms+kcore: what it was filled from)
$K -l -p '*' > /dev/null
$K -l -p '*' > $O/whole.warm; r1=$?
$K -l -p '*' --no-cache > $O/whole.cold; r2=$?
is "$r1:$r2:$(tail -n 1 $O/whole.warm)" "0:0:$(tail -n 1 $O/whole.cold |
	sed -E 's/\((kmem|iter)\+kcore/(kallsyms+kcore/; s/\)$/, cached)/')" \
	"the cache a whole-table run wrote lists every traceable function"
check "the whole-table listing says how many it matched" grep -q '^[1-9][0-9]* functions matched' $O/whole.cold
$K -v -p 'vfs_*' -o json > $O/attach1.json 2> $O/attach1.err
check "second run attaches from the cache (what vfs_* matched, kept apart)" sh -c \
	"grep -q '\"cached\":true' $O/attach1.json && grep -q 'what these patterns matched before' $O/attach1.err"
is "$(json_int cache $O/attach1.json)" 0 "second run writes no cache"

# Known I/O while attached: dd bs=1 does one read and one write per byte.
N=3000
$K -p 'vfs_*' -d 120 -o json > $O/io.json 2> $O/io.err &
pid=$!
check "announces it is attached" wait_for $O/io.err 60 'attached'
is "$(kprobe_multi_links)" 1 "one kprobe.multi link while attached"
dd if=/dev/zero of=/dev/null bs=1 count=$N 2>/dev/null
kill -INT $pid
wait $pid
is $? 130 "SIGINT ends the run with 130"
ge "$(json_hits vfs_read $O/io.json)" $N "vfs_read hits >= $N reads"
ge "$(json_hits vfs_write $O/io.json)" $N "vfs_write hits >= $N writes"
is "$(probes_left)" 0 "no kprobe.multi link left after exit"
