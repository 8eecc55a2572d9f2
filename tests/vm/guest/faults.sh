# Faults around the cache, on any kernel: a full or read-only /run/ksymattach costs
# the cache (one warning), never the run; runs started together on a cold cache all
# succeed and leave one valid cache.
rm -rf /run/ksymattach
i=0; pids=
while [ $i -lt 8 ]; do
	$K -l -p 'vfs_*' > $O/par$i.out 2> $O/par$i.err &
	pids="$pids $!"; i=$((i + 1))
done
fails=0
for p in $pids; do wait $p || fails=$((fails + 1)); done
is "$fails" 0 "8 runs at once on a cold cache: all succeed"
is "$(cat $O/par*.err | grep -vc 'traceability unknown')" 0 "8 runs at once: no warning (none saw a torn cache)"
$K -l -o json -p 'vfs_*' > $O/par-after.json 2> $O/par-after.err
check "8 runs at once: the cache they left is valid and used" grep -q '"cached":true' $O/par-after.json
# a full /run (a tiny tmpfs) and a read-only one
for how in full ro; do
	rm -rf /run/ksymattach; mkdir -p /run/ksymattach
	if [ $how = full ]; then
		mount -t tmpfs -o size=4k,mode=0700 tmpfs /run/ksymattach
	else
		mount -t tmpfs -o ro,mode=0700 tmpfs /run/ksymattach
	fi
	$K -l -p 'vfs_*' > $O/$how.out 2> $O/$how.err
	rc=$?
	check "/run/ksymattach $how: the run succeeds, one warning names the cache" sh -c \
		"[ $rc -eq 0 ] && [ \$(grep -c . $O/$how.err) -eq 1 ] && grep -q 'cannot write cache /run/ksymattach' $O/$how.err"
	sed 's/^/# /' $O/$how.err
	umount /run/ksymattach
done
rm -rf /run/ksymattach
# out of file descriptors (every link is one; classic kprobes on 6.1 too): one
# line naming the limit, nothing left attached
( ulimit -n 40; exec $K -p 'vfs_*' --link-per-func --no-cache ) > $O/nofile.out 2> $O/nofile.err
rc=$?
check "ulimit -n 40, a link per function: one error naming the limit (rc $rc)" sh -c \
	"[ $rc -ne 0 ] && [ \$(grep -vc 'warning:' $O/nofile.err) -eq 1 ] &&
	 grep -q 'out of file descriptors after [0-9]* links (this process, open files limit 40)' $O/nofile.err"
sed 's/^/# /' $O/nofile.err
is "$(bpftool link show 2>/dev/null | grep -c '^[0-9]*:')" 0 "out of file descriptors: no link left"
