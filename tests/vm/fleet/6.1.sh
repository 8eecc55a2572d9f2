# The fleet service on bookworm's 6.1 (no kprobe.multi): classic kprobes, reported.
cd /host || exit 1
. ./lib.sh
O=/host/out
STATE=/var/lib/ksymattach
bid=$(tr -d '-' < /proc/sys/kernel/random/boot_id)
echo "# guest $(uname -r), systemd $KSA_SYSTEM_STATE"
check "boot unit: active (exited)" systemctl is-active --quiet ksymattach-boot.service
cp $STATE/boot-$bid.json $O/boot.json 2>/dev/null
check "boot report: classic kprobes stood in" grep -q '"fallback":true' $O/boot.json
ge "$(json_int attached $O/boot.json)" 1 "boot report: attached > 0"
journalctl -b --no-pager -o cat -u ksymattach-boot.service > $O/boot-journal.txt
check "journal: the summary line says classic kprobes" grep -q "^boot $bid: .* (classic kprobes, no kprobe.multi on this kernel)" $O/boot-journal.txt
grep "^boot $bid" $O/boot-journal.txt | sed 's/^/# /'
check "the .prom says so" grep -q '^ksymattach_fallback_kprobes 1' /var/lib/prometheus/node-exporter/ksymattach.prom
cp /var/lib/prometheus/node-exporter/ksymattach.prom $O/ksymattach.prom
check "daemon: active on classic kprobes" systemctl is-active --quiet ksymattach.service
systemctl stop ksymattach.service
is "$(bpftool link show 2>/dev/null | grep -c perf_event)" 0 "stop: no kprobe link left"
