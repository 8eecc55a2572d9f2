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
# SIGKILL at every step of the cache writes: strace kills the run on entry to the
# k-th call of a system call, each step found by tracing a cold run (-y names the
# temporary a call works on): each file's temporary made, its header and payload
# written, synced, renamed, for both files (what vfs_* matched, in /run and in the
# build cache). The published files go before each kill, the temporaries stay: the
# next run must be right, say nothing of a damaged cache, and leave no temporary
# of a writer gone.
C="/run/ksymattach /var/cache/ksymattach"
rm -rf $C
$K -l -o json -p 'vfs_*' --no-cache 2> /dev/null | grep -o '"name":"[^"]*"' | sort > $O/kill-want
strace -f -qq -y -e trace=fchmod,write,fsync,rename -o $O/kill.trace $K -l -p 'vfs_*' > /dev/null 2>&1
points=$(awk '/resumed>/ { next } { c = $2; sub(/\(.*/, "", c); n[c]++ }
	/ksymattach\/\./ { print c ":" n[c] }' $O/kill.trace)
np=0 killed=0 bad=
for p in $points; do
	np=$((np + 1)); sc=${p%:*}
	rm -f /run/ksymattach/[!.]* /var/cache/ksymattach/[!.]*
	strace -f -qq -o /dev/null -e trace=$sc -e inject=$sc:signal=KILL:when=${p#*:} \
		$K -l -p 'vfs_*' > /dev/null 2>&1
	[ $? -eq 137 ] && killed=$((killed + 1))
	$K -l -o json -p 'vfs_*' > $O/kill-next.json 2> $O/kill-next.err
	rc=$?
	grep -o '"name":"[^"]*"' $O/kill-next.json | sort > $O/kill-got
	tmps=$(ls -a $C 2>/dev/null | grep -c '^\.[a-z]')
	if [ $rc -ne 0 ] || [ -s $O/kill-next.err ] || ! cmp -s $O/kill-got $O/kill-want || [ $tmps -ne 0 ]; then
		bad="$bad $p(rc $rc, $tmps temporaries)"
		sed "s/^/# $p: /" $O/kill-next.err
	fi
done
check "SIGKILL at $np steps of the cache writes ($killed killed there): the next run right, no damaged cache, no temporary left${bad:+; failed:$bad}" \
	sh -c "[ $np -ge 8 ] && [ $killed = $np ] && [ -z '$bad' ] && [ \$(wc -l < $O/kill-want) -gt 1 ]"
echo "# kill points: $(echo $points)"
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
one_error "ulimit -n 40, a link per function: one error naming the limit" $? $O/nofile.err \
	'out of file descriptors after [0-9]* links (this process, open files limit 40)'
is "$(probes_left)" 0 "out of file descriptors: no link left"
# classic kprobes (6.1's only kind) need an fd each: a soft limit below that is
# raised to the hard one; the kprobe blacklist's functions are left out by name
fb=; grep -q ' register_fprobe$' /proc/kallsyms && fb="--fallback kprobe"
( ulimit -S -n 40; exec $K -p 'vfs_*' $fb --no-cache -o json ) > $O/softfd.json 2> $O/softfd.err
rc=$?
check "classic kprobes, soft fd limit 40 (hard $(ulimit -H -n)): raised, every vfs_* function attached ($(json_int attached $O/softfd.json))" \
	sh -c "[ $rc -eq 0 ] && [ '$(json_int attached $O/softfd.json)' -ge 40 ]"
sed 's/^/# /' $O/softfd.err
mount | grep -q ' /sys/kernel/debug ' || mount -t debugfs none /sys/kernel/debug
bl=$(awk '{ print $2 }' /sys/kernel/debug/kprobes/blacklist | sort -u |
	grep -xF -f - /sys/kernel/tracing/available_filter_functions | head -n 1)
if [ -n "$bl" ]; then
	$K -p "$bl" -p vfs_read $fb --no-cache -o json > $O/bl.json 2> $O/bl.err
	rc=$?
	check "classic kprobes: $bl (traceable, kprobe-blacklisted) left out as blacklisted, vfs_read attached" \
		sh -c "[ $rc -eq 0 ] && grep -q '\"name\":\"$bl\",\"addr\":\"0x[0-9a-f]*\",\"reason\":\"in the kprobe blacklist\"' $O/bl.json &&
		       [ '$(json_int attached $O/bl.json)' = 1 ]"
	sed 's/^/# /' $O/bl.err; grep -o '"excluded":[^]]*]' $O/bl.json | sed 's/^/# /'
else
	not_ok "classic kprobes: no traceable function in the kprobe blacklist to try"
fi
is "$(probes_left)" 0 "classic kprobes: no link left"
# ENOMEM from the kernel: Debian's kernels cannot inject it (no fault injection) and
# a memory cgroup OOM-kills instead, so strace makes bpf() return it, at the call
# that makes a link (found by tracing a run first) and then at every one after it.
# With kprobe.multi: at the first link, which is halved, every function attached;
# with classic kprobes only (6.1, arm64's 6.12): at the fifth kprobe's link, one error. Always: one line naming it.
# Either way nothing is left attached.
ST="strace -f --seccomp-bpf -qq -e trace=bpf"
if grep -q ' register_fprobe$' /proc/kallsyms; then
	lt=BPF_TRACE_KPROBE_MULTI k=1
else
	lt=BPF_PERF_EVENT k=5
fi
$ST -o $O/nomem.trace $K -p 'vfs_*' --no-cache -o json > $O/nomem0.json 2> /dev/null
n=$(awk -v lt=$lt -v k=$k '/resumed>/ { next } /bpf\(/ { n++ }
	/BPF_LINK_CREATE/ && index($0, "attach_type=" lt) && !/= -1/ && ++m == k { print n; exit }' \
	$O/nomem.trace)
# a kernel without perf links (before 5.15) gives a kprobe its program by ioctl:
# there, the fifth kprobe's perf_event_open fails instead
sc=bpf
if [ -z "$n" ] && [ $k = 5 ]; then
	sc=perf_event_open n=5
fi
STN="strace -f --seccomp-bpf -qq -e trace=$sc"
want=$(json_int attached $O/nomem0.json)
$STN -o /dev/null -e inject=$sc:error=ENOMEM:when=$n $K -p 'vfs_*' --no-cache -o json \
	> $O/nomem1.json 2> $O/nomem1.err
rc=$?
if [ $k = 1 ]; then
	check "ENOMEM at the first link (bpf call $n): halved, all $want functions attached in $(json_int links $O/nomem1.json) links" \
		sh -c "[ $rc -eq 0 ] && [ -n '$want' ] && [ $want -gt 1 ] &&
		       [ '$(json_int attached $O/nomem1.json)' = $want ] && [ '$(json_int links $O/nomem1.json)' = 2 ]"
else
	one_error "ENOMEM at the fifth kprobe's link ($sc call $n): one line naming it" $rc \
		$O/nomem1.err 'the kernel is out of memory: it refused a kprobe after 4 were made'
fi
is "$(probes_left)" 0 "ENOMEM once: no link left"
$STN -o /dev/null -e inject=$sc:error=ENOMEM:when=$n+ $K -p 'vfs_*' --no-cache \
	> $O/nomem2.out 2> $O/nomem2.err
one_error "ENOMEM at every $sc call from $n on: one line naming it" $? $O/nomem2.err \
	'the kernel is out of memory: it refused a \(kprobe\|link of 1 function\) after'
is "$(probes_left)" 0 "ENOMEM always: no link left"
# A signal during verification (a reload's SIGHUP in the daemon) makes the hit
# program's BPF_PROG_LOAD fail with EAGAIN: tried again, five loads in all, as
# libbpf does; five interrupted in a row are one line. (6.1 warns of the fallback.)
# (without kprobe.multi, the classic kprobes' program: the last one loaded)
n=$(awk '/resumed>/ { next } /bpf\(/ { n++ } /BPF_PROG_LOAD/ && /"ksa_hits"/ { at = n } END { print at }' \
	$O/nomem.trace)
$ST -o /dev/null -e inject=bpf:error=EAGAIN:when=$n..$((n + 3)) $K -p 'vfs_*' --no-cache \
	-o json > $O/again1.json 2> $O/again1.err
rc=$?
check "EAGAIN at the hit program's load four times (bpf calls $n-$((n + 3))): loaded, all $want functions attached" \
	sh -c "[ $rc -eq 0 ] && [ -n '$n' ] && [ \$(grep -vc 'warning:' $O/again1.err) -eq 0 ] &&
	       [ '$(json_int attached $O/again1.json)' = '$want' ]"
$ST -o /dev/null -e inject=bpf:error=EAGAIN:when=$n..$((n + 4)) $K -p 'vfs_*' --no-cache \
	> $O/again2.out 2> $O/again2.err
one_error "EAGAIN at five loads in a row: one line naming it" $? $O/again2.err \
	"cannot load the BPF program: the kernel's verifier was interrupted 5 times in a row"
is "$(probes_left)" 0 "EAGAIN: no link left"
# kcore unreadable at the start (a file that is no ELF bound over it, as a locked
# down kernel refuses it): tracefs' lists instead, the same functions
$K -l -p 'vfs_*' --no-cache -o json > $O/kc-want.json 2> /dev/null
: > $O/empty; mount -o bind $O/empty /proc/kcore
$K -l -p 'vfs_*' --no-cache -o json -v > $O/kc.json 2> $O/kc.err
rc=$?
umount /proc/kcore
grep -o '"name":"[^"]*"' $O/kc.json | sort > $O/kc.names
grep -o '"name":"[^"]*"' $O/kc-want.json | sort > $O/kc-want.names
check "kcore unreadable: the run succeeds from tracefs' lists, the same functions ($(wc -l < $O/kc.names))" sh -c \
	"[ $rc -eq 0 ] && grep -q 'cannot read /proc/kcore.*using tracefs' $O/kc.err &&
	 [ -s $O/kc.names ] && cmp -s $O/kc.names $O/kc-want.names"
grep 'kcore' $O/kc.err | sed 's/^/# /'
# the daemon, tracefs unmounted and kcore made unreadable under it, then a reload
# that must resolve a new pattern (no /run cache): it holds /proc/kcore open from
# its start and reads symbols through the iterator, so it goes on and attaches
# it; a fresh run in the same state attaches too
D=$O/dmn; mkdir -p $D
conf() { printf 'interval = 1s\njson_dir = %s\nprom_file = %s/k.prom\n' $D $D > $D/k.conf
	 for p in "$@"; do echo "pattern = $p" >> $D/k.conf; done; }
# links, or kprobes given the program by ioctl (a kernel without perf links)
links() {
	_n=$(links_left)
	case $_n in *failed*) echo -1; return ;; esac
	[ "$_n" -gt 0 ] || _n=$(kprobes_attached)
	echo "$_n"
}
conf vfs_read
$K daemon --config $D/k.conf > $D/d.out 2> $D/d.err &
dp=$!
i=0; while [ ! -s $D/daemon.json ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
l0=$(links)
umount /sys/kernel/tracing /sys/kernel/debug/tracing 2>/dev/null
mount -o bind $O/empty /proc/kcore
rm -rf /run/ksymattach
conf vfs_read vfs_write
kill -HUP $dp; sleep 5
l1=$(links)
alive=0; kill -0 $dp 2>/dev/null && alive=1
check "daemon: tracefs unmounted and kcore unreadable under it, a reload that must resolve: running, the new pattern attached ($l0 -> $l1 links)" \
	sh -c "[ $l0 -ge 1 ] && [ $l1 -gt $l0 ] && [ $alive = 1 ]"
$K -p vfs_read --no-cache -o json > $O/fr.json 2> $O/fr.err
rc=$?
check "the same state, a fresh run: vfs_read attached all the same ($(grep -o '"source":"[^"]*"' $O/fr.json): debugfs mounts tracefs again when asked)" \
	sh -c "[ $rc -eq 0 ] && grep -q '\"attached\":1' $O/fr.json"
sed 's/^/# /' $O/fr.err
umount /proc/kcore
mount -t tracefs nodev /sys/kernel/tracing
kill -TERM $dp; wait $dp; rc=$?
is "$rc" 0 "daemon after faults: exit 0 on SIGTERM"
grep -v '^ksymattach: start' $D/d.err | head -n 6 | sed 's/^/# /'
is "$(probes_left)" 0 "daemon after faults: no link left"
