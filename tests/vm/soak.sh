#!/usr/bin/env bash
# soak.sh [MINUTES]: the daemon soak (a longer run, not in make check): in the 6.12
# guest, `ksymattach daemon` under a steady syscall load for MINUTES (default 10),
# reloaded every 10 s with one of two configs in turn, while a reader checks every
# version of its outputs, and a module is loaded and unloaded in a loop (dummy:
# config a attaches its functions, b does not, so an unload succeeds in b's turns
# and is refused while attached). Prints the daemon's RSS, open fds and BPF links
# at the start and the end; fails when a counter went backwards, an output was
# ever seen incomplete, the daemon died, or a link was left. `make soak` runs it;
# SOAK_ASAN=1 runs the ASan/UBSan build (its libraries from this host), where any
# report of the sanitizers fails it too.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
OUTPUT=${OUTPUT:-$top/build}
case $OUTPUT in /*) ;; *) OUTPUT=$top/$OUTPUT ;; esac
mins=${1:-10}
share=$(mktemp -d); trap 'rm -rf "$share"' EXIT
mkdir -p "$share/bin"; cp "$OUTPUT/ksymattach" "$share/bin/"
run=/host/bin/ksymattach
if [ -n "${SOAK_ASAN:-}" ]; then
	mkdir -p "$share/lib"
	cp "$OUTPUT/ksymattach-asan" "$share/bin/"
	for lib in $(ldd "$OUTPUT/ksymattach-asan" | grep -o '/[^ ]*'); do cp -L "$lib" "$share/lib/"; done
	run="/host/lib/ld-linux-x86-64.so.2 --library-path /host/lib /host/bin/ksymattach-asan"
fi
cat > "$share/job" <<JOB
mins=$mins
K="$run"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
JOB
cat >> "$share/job" <<'JOB'
D=/tmp/soak; mkdir -p $D/out
printf 'pattern = vfs_*\npattern = ksys_*\npattern = dummy:*\ninterval = 1s\njson_dir = %s/out\nprom_file = %s/out/k.prom\n' $D $D > $D/a.conf
printf 'pattern = vfs_*\npattern = do_sys_*\nexclude = vfs_fsync*\ninterval = 1s\njson_dir = %s/out\nprom_file = %s/out/k.prom\n' $D $D > $D/b.conf
cp $D/a.conf $D/k.conf
$K daemon --config $D/k.conf > $D/d.out 2> $D/d.err &
pid=$!
i=0
while [ ! -s $D/out/daemon.json ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
sample() { echo "$1: rss_kb=$(awk '/^VmRSS/ { print $2 }' /proc/$pid/status) fds=$(ls /proc/$pid/fd | wc -l) links=$(bpftool link show | grep -c kprobe_multi)"; }
sample start
# load: reads and writes all the time
( while :; do dd if=/dev/zero of=/dev/null bs=512 count=2000 2>/dev/null; done ) &
load=$!
# the reader: every version whole, vfs_read's count never smaller than before
( prev=0; bad=0; back=0; seen=0
  while [ ! -e $D/stop ]; do
	j=$(cat $D/out/daemon.json); p=$(cat $D/out/k.prom)
	case $j in *']}') ;; *) bad=$((bad + 1)) ;; esac
	case $p in *ksymattach_report_interval_seconds*) ;; *) bad=$((bad + 1)) ;; esac
	c=$(echo "$j" | grep -o '"name":"vfs_read","module":null,"calls":[0-9]*' | sed 's/.*://')
	if [ -n "$c" ]; then
		[ "$c" -ge "$prev" ] || back=$((back + 1))
		prev=$c
	fi
	seen=$((seen + 1))
	sleep 0.2
  done
  echo "reader: $seen versions read, $bad incomplete, $back times vfs_read went backwards, last $prev" > $D/reader ) &
reader=$!
# a module in and out: loaded, unloaded where nothing holds it
( ins=0; outs=0
  while [ ! -e $D/stop ]; do
	insmod /modules/dummy.ko 2>/dev/null && ins=$((ins + 1))
	sleep 2
	rmmod dummy 2>/dev/null && outs=$((outs + 1))
	sleep 1
  done
  echo "modules: dummy loaded $ins times, unloaded $outs times" > $D/modules ) &
mods=$!
end=$(($(date +%s) + mins * 60)); n=0
while [ "$(date +%s)" -lt $end ] && kill -0 $pid 2>/dev/null; do
	sleep 10
	n=$((n + 1))
	if [ $((n % 2)) -eq 1 ]; then cp $D/b.conf $D/k.conf; else cp $D/a.conf $D/k.conf; fi
	kill -HUP $pid
done
alive=0; kill -0 $pid 2>/dev/null && alive=1
sleep 3
sample end
touch $D/stop; wait $reader; wait $mods
kill $load 2>/dev/null
kill -TERM $pid; wait $pid; rc=$?
cat $D/reader $D/modules
# (bpftool's failure is no "no link")
after=$(bpftool link show 2>&1) && after=$(echo "$after" | grep -c kprobe_multi) || after="bpftool failed"
echo "reloads: $n, daemon alive at the end: $alive, exit on SIGTERM: $rc, links after: $after"
grep -c 'reload: ' $D/d.err | sed 's/^/reload lines in the log: /'
# (sed reads to the end: head would leave grep to die of SIGPIPE under pipefail)
grep -v 'reload: \|^ksymattach: start' $D/d.err | sed -n 1,5p
san=$(grep -c 'ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:' $D/d.err)
echo "sanitizer reports: $san"
# (vfs_read's count was read at all: "went backwards 0 times" says something)
grep -q ' 0 incomplete, 0 times' $D/reader && ! grep -q 'last 0$' $D/reader &&
	[ $alive = 1 ] && [ $rc = 0 ] && [ $san = 0 ] && [ "$after" = 0 ]
JOB
"$here/vm.sh" run 6.12 "$share" $((mins * 60 + 300))
grep -v '^# vm-done' "$share/out/log"
grep -q '^# vm-done rc=0' "$share/out/log"
