# The second boot's common checks (sourced; bid, bid1, STATE, O set): the boot unit
# imported the build cache and its first run was warm, at a fraction of the first
# boot's stall.
stall_of() { sed -n 's/.*"stall_us":\([0-9.]*\).*/\1/p' "$1" | head -n1; }
cp $STATE/boot-$bid.json $O/boot2.json 2>/dev/null
journalctl -b --no-pager -o cat -u ksymattach-boot.service > $O/boot2-journal.txt
check "second boot: the boot unit imported the dropped build cache" \
	grep -q '^imported the build cache /var/lib/ksymattach/import/node-a.ksym' $O/boot2-journal.txt
check "second boot: the boot unit's functions came from the build cache" \
	grep -q '"build_cache":true' $O/boot2.json
grep "^boot $bid" $O/boot2-journal.txt | sed 's/^/# /'
s1=$(stall_of $STATE/boot-$bid1.json); s2=$(stall_of $O/boot2.json)
r=$(awk -v a="$s1" -v b="$s2" 'BEGIN { if (a > 0 && b > 0) printf "%.3f", b / a }')
echo "# boot stall: first boot $s1 us (cold), second boot $s2 us (build cache): ${r}x"
# Issue 18's goal is 0.15x (a measurement, printed above: the load phase in a fresh
# process, libbpf's feature probes, is most of what is left); the check is that the
# build cache took the cold read out of it: a cold boot measures 0.7-1.1x here.
check "second boot: the boot unit's stall well below the first boot's (${r}x <= 0.5x)" \
	awk -v r="$r" 'BEGIN { exit !(r != "" && r <= 0.5) }'
