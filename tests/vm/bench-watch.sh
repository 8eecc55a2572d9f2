# bench-watch.sh: runs in the guest (busybox sh), from bench.sh's job in the share.
# What `ksymattach watch` costs the agents it watches: an agent's attach stall
# with a watcher running beside it against without, alternated round by round in
# one guest; then whether it keeps up with the whole kernel attached by another
# process. The agents: ksymattach with libbpf resolving (it reads tracefs' list:
# thousands of reads the watcher sees) and ksymattach cold (kcore's reads, the
# links by address). Each agent's stall is its own report's: read, parse, index,
# match, load and attach. bench.sh runs this in a guest whose clock counts the
# instructions it runs (QEMU's -icount), so a stall is the work done in it, not
# the host's time, and the two columns differ by what the watcher's probes add.
ROUNDS=${ROUNDS:-7}
K=./bin/ksymattach
W=/tmp/bench-watch
mkdir -p $W
# stall ARGS...: one run's stall in ms, by its JSON report
stall() {
	$K "$@" -o json 2> /dev/null | grep -o '"phases_us":{[^}]*}' | tr -d '{}"' |
		tr ',' '\n' | sed 's/phases_us://' | awk -F: '
		$1 == "cache" || $1 == "detach" { next } { s += $2 } END { printf "%.1f\n", s / 1000 }'
}
watcher_on() {
	rm -f $W/w.err
	$K watch -d 600 -o json > $W/w.json 2> $W/w.err &
	wpid=$!
	i=0
	until grep -q watching $W/w.err 2> /dev/null || [ $i -gt 600 ]; do i=$((i + 1)); sleep 0.1; done
}
watcher_off() { kill -INT $wpid; wait $wpid; }
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "### ksymattach watch: an agent's attach stall with a watcher beside it, $ROUNDS alternated rounds"
rm -f $W/t.*
for i in $(seq "$ROUNDS"); do
	for a in libbpf cold; do
		case $a in libbpf) set -- -p 'vfs_*' -r libbpf ;; cold) set -- -p 'vfs_*' --no-cache ;; esac
		stall "$@" >> $W/t.$a.without
		watcher_on
		stall "$@" >> $W/t.$a.with
		watcher_off
	done
done
printf '%-8s %10s %10s %8s\n' agent without with ratio
for a in libbpf cold; do
	x=$(median $W/t.$a.without); y=$(median $W/t.$a.with)
	printf '%-8s %10s %10s %8s\n' $a "$x" "$y" "$(awk -v a="$y" -v b="$x" 'BEGIN { printf "%.3fx", a / b }')"
done
echo "(ms, medians; without: $(tr '\n' ' ' < $W/t.libbpf.without)/ $(tr '\n' ' ' < $W/t.cold.without))"
echo "(with: $(tr '\n' ' ' < $W/t.libbpf.with)/ $(tr '\n' ' ' < $W/t.cold.with))"

echo "### ksymattach watch beside the whole kernel attached by names (-p '*' -r kernel)"
if ! grep -q ' register_fprobe$' /proc/kallsyms; then
	echo "not on this kernel: no kprobe.multi (a classic kprobe a function would take hours)"
	exit 0
fi
watcher_on
$K -p '*' -r kernel -o json > $W/all.json 2> $W/all.err &
apid=$!
wait $apid
watcher_off
line=$(grep "^{\"pid\":$apid," $W/w.json)
att=$(sed -n 's/.*"attached":\([0-9]*\).*/\1/p' $W/all.json)
fns=$(echo "$line" | sed -n 's/.*"functions":\([0-9]*\).*/\1/p')
echo "attached by its own report: $att; by the watcher: $fns; $(sed -n 1p $W/w.json |
	sed -n 's/.*\("dropped_events":[0-9]*\).*/\1/p'); its record:"
echo "$line" | cut -c 1-500
