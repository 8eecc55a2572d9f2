# The second boot's common checks (sourced; bid, bid1, STATE, O set): the boot unit
# imported the build cache and its first run was warm: its read phase a fraction
# of the first boot's.
stall_of() { sed -n 's/.*"stall_us":\([0-9.]*\).*/\1/p' "$1" | head -n1; }
read_of() { sed -n 's/.*"phases_us":{"read":\([0-9.]*\).*/\1/p' "$1" | head -n1; }
cp $STATE/boot-$bid.json $O/boot2.json 2>/dev/null
journalctl -b --no-pager -o cat -u ksymattach-boot.service > $O/boot2-journal.txt
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
# Issue 18's goal, 0.15x of the whole stall, is a measurement (printed above): on
# 6.12 the kernel's own load and attach under the boot's contention are most of
# what is left, on 6.1 the classic kprobes' attach. The read is printed too: a
# bound on it held while a cold first boot walked the table (1.6-3.5 s, 0.03-0.34x
# seen); read from the kernel's table in memory, the cold read is about the build
# cache's own (0.84x in one 6.1 run), so what is checked is that the build cache
# served, above.
