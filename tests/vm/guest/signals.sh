# SIGINT and SIGTERM at many points of a run, cold and warm, kprobe.multi (and on
# 6.12 kprobe.session) and --compare, and of the daemon: the run ends 130/143 (or
# 0 if it finished first; the daemon's SIGTERM is its normal stop), nothing stays
# attached, no temporary cache file is left behind.
sig_runs=0; sig_bad=0; sig_max=0; sig_max_at=; sig_hit=0
sig_alive() { st=$(cut -d' ' -f3 /proc/$1/stat 2>/dev/null); [ -n "$st" ] && [ "$st" != Z ]; }
sig_try() { # SIGNAL DELAY CMD...
	s=$1 delay=$2; shift 2
	"$@" > /dev/null 2> $O/sig.err &	# (the shell says "Terminated" of some)
	p=$!
	sleep $delay
	t0=$(cut -d' ' -f1 /proc/uptime)
	kill -$s $p 2>/dev/null
	# bounded: a run deaf to its signal fails this test, not the suite's time
	# (an exited child stays a zombie until waited for)
	i=0; while sig_alive $p && [ $i -lt 1000 ]; do sleep 0.02; i=$((i + 1)); done
	deaf=0; sig_alive $p && { deaf=1; kill -9 $p; }
	wait $p; rc=$?
	[ $deaf = 1 ] && rc=deaf
	t1=$(cut -d' ' -f1 /proc/uptime)
	# from the signal to the exit (10 ms ticks); 0 where it had ended already
	lat=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 + 0.5 }')
	if [ $rc != deaf ] && { [ "$rc" -ne 0 ] || [ -n "${sig_daemon:-}" ]; } && [ "$lat" -gt "$sig_max" ]; then
		sig_max=$lat; sig_max_at="SIG$s after ${delay}s: $*"
	fi
	want=130; [ $s = TERM ] && want=143
	links=$(probes_left)
	tmps=$(ls -a /run/ksymattach 2>/dev/null | grep -c '^\.[a-z].*\.......$')
	sig_runs=$((sig_runs + 1))
	[ "$rc" = $want ] && sig_hit=$((sig_hit + 1))
	if [ $rc = deaf ] || { [ $rc -ne $want ] && [ $rc -ne 0 ]; } || [ "$links" != 0 ] || [ "$tmps" -ne 0 ]; then
		sig_bad=$((sig_bad + 1))
		echo "# SIG$s after ${delay}s: rc $rc (want $want or 0), links $links, temporaries $tmps: $*"
	fi
}
for delay in 0.1 0.5 1.2 2.5; do
	rm -rf /run/ksymattach	# cold: reading, parsing, the kcore check, the cache write
	sig_try INT $delay $K -p 'vfs_*'
	sig_try TERM $delay $K -p 'vfs_*'	# warm now, or cold again where interrupted
	[ "$kind" = fallback ] && continue
	sig_try INT $delay $K -p 'vfs_*' -m session
done
# --compare, a run of runs: once, in its middle (6.1: classic kprobes in every row)
sig_try TERM 2 $K -p 'vfs_*' --compare --rounds 1
# the daemon (never done by itself: each exit is the signal's; SIGTERM is its
# normal stop, exit 0), from its cold start to its steady state. SIGINT only
# once it runs: sh starts a background job with SIGINT ignored, and one sent
# before the daemon installs its handler is ignored (a CLI run then just ends)
printf 'pattern = vfs_*\ninterval = 1s\njson_dir = %s\nprom_file = %s/k.prom\n' $O $O > $O/sig.conf
sig_daemon=1
for delay in 0.1 0.5 1.2 2.5 4; do
	rm -rf /run/ksymattach
	sig_try TERM $delay $K daemon --config $O/sig.conf
	case $delay in 1.2|4) sig_try INT $delay $K daemon --config $O/sig.conf ;; esac
done
sig_daemon=
is "$sig_bad" 0 "signals at $sig_runs points of cold, warm, session, compare and daemon runs: each ends cleanly"
# (a run may finish before its signal, exit 0, and the daemon's SIGTERM is its
# normal stop: but a tool deaf to signals would end every run with 0)
ge "$sig_hit" 3 "signals: runs ended by their signal, 130 or 143 ($sig_hit of $sig_runs)"
# Under TCG the guest runs some 10-20 times slower than the host: the bound is
# the host's 100 ms scaled so, a measurement more than a limit (docs/reliability.md)
# On 6.1 an exit detaches up to 73 classic kprobes, one kprobe unregistered each
# (2.8-3.3 s in this guest from eight threads; 6.1 s seen for a run signalled
# mid-attach): that is in its bound
bound=3000; [ "$kind" = fallback ] && bound=12000
echo "# slowest exit after a signal: $sig_max ms ($sig_max_at)"
check "signals: every interrupted run exited within $((bound / 1000)) s of its signal under TCG ($sig_max ms)" \
	[ "$sig_max" -le $bound ]
rm -rf /run/ksymattach
