# The fleet service's second boot of the same disk (dash; after first.sh): the boot
# unit imports the build cache dropped in /var/lib/ksymattach/import on the first
# boot and its first run is warm (its read phase a fraction of the first boot's);
# where the kernel has kprobe.multi, then the package's stop and purge.
cd /host || exit 1
. ./lib.sh
. ./fleet/common.sh
bid1=$(cat $O/boot1-id)
echo "# second boot"
stall_of() { sed -n 's/.*"stall_us":\([0-9.]*\).*/\1/p' "$1" | head -n1; }
read_of() { sed -n 's/.*"phases_us":{"read":\([0-9.]*\).*/\1/p' "$1" | head -n1; }
cp $STATE/boot-$bid.json $O/boot2.json 2>/dev/null
jcat -u ksymattach-boot.service > $O/boot2-journal.txt
check "second boot: the boot unit imported the dropped build cache" \
	grep -q '^imported the build cache /var/lib/ksymattach/import/node-a.ksym' $O/boot2-journal.txt
check "second boot: the boot unit's functions came from the build cache" \
	grep -q '"build_cache":true' $O/boot2.json
grep "^boot $bid" $O/boot2-journal.txt | sed 's/^/# /'
s1=$(stall_of $STATE/boot-$bid1.json); s2=$(stall_of $O/boot2.json)
r1=$(read_of $STATE/boot-$bid1.json); r2=$(read_of $O/boot2.json)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.3f", b / a }'; }
r=$(ratio "$s1" "$s2"); rr=$(ratio "$r1" "$r2")
echo "# boot stall: first boot $s1 us (cold), second boot $s2 us (build cache): ${r}x"
echo "# read phase: first boot $r1 us, second boot $r2 us: ${rr}x"
phases_of() { grep -o '"phases_us":{[^}]*}' "$1" | head -n1; }
echo "# first boot $(phases_of $STATE/boot-$bid1.json)"
echo "# second boot $(phases_of $O/boot2.json)"
# The goal, 0.15x of the whole stall, is a measurement (printed above): with
# kprobe.multi the kernel's own load and attach under the boot's contention are
# most of what is left, with classic kprobes their attach. The read is printed too:
# a bound on it held while a cold first boot walked the table (1.6-3.5 s,
# 0.03-0.34x seen); read from the kernel's table in memory, the cold read is about
# the build cache's own (0.84x in one 6.1 run), so what is checked is that the
# build cache served, above.

if [ -z "$KMULTI" ]; then
	check "second boot: classic kprobes stood in" grep -q '"fallback":true' $O/boot2.json
	for t in "daemon: active on the second boot, stopped with nothing left" \
		"purge: everything the package made is gone"; do
		skip "$t" "this kernel has no kprobe.multi: fleet-6.12.t and fleet-trixie.t run it"
	done
	the_end again
	exit 0
fi

check "daemon: active on the second boot" wait_until 120 systemctl is-active --quiet ksymattach.service
# Stop: nothing left attached.
systemctl stop ksymattach.service
is "$(link_ids | grep -c .)" 0 "stop: no kprobe.multi link left"
check "stop: the journal says so" sh -c "journalctl -b -o cat -u ksymattach.service | grep -q 'stopped: everything detached'"
# Purge: everything gone: what the package listed (its units wherever this
# system's dpkg put them: /lib is /usr/lib on a merged /usr) and what it made.
dpkg-query -L ksymattach > $O/package-files.txt 2>/dev/null
dpkg --purge ksymattach > $O/purge.log 2>&1
is "$?" 0 "purge: dpkg --purge succeeds"
for f in $CONF $STATE $PROM ${PROM%.prom}-watch.prom /var/cache/ksymattach \
	/lib/systemd/system/ksymattach.service /usr/sbin/ksymattach /run/ksymattach; do
	check "purge: $f is gone" [ ! -e $f ]
done
left=$(while read -r f; do [ -d "$f" ] || [ ! -e "$f" ] || echo "$f"; done < $O/package-files.txt)
ge "$(grep -c . $O/package-files.txt)" 10 "purge: dpkg listed the package's files before"
is "${left:-none}" none "purge: none of the package's files is left"
the_end again
