# The fleet service on bookworm's 6.1 (no kprobe.multi): classic kprobes, reported.
cd /host || exit 1
. ./lib.sh
O=/host/out
STATE=/var/lib/ksymattach
bid=$(tr -d '-' < /proc/sys/kernel/random/boot_id)
echo "# guest $(uname -r), systemd $KSA_SYSTEM_STATE"
diag() { { systemctl status "$1" --no-pager -l; journalctl -b -u "$1" --no-pager -o cat | tail -n 30; } 2>&1 | sed 's/^/# /'; }
check "boot unit: active (exited)" systemctl is-active --quiet ksymattach-boot.service ||
	diag ksymattach-boot.service
cp $STATE/boot-$bid.json $O/boot.json 2>/dev/null
check "boot report: classic kprobes stood in" grep -q '"fallback":true' $O/boot.json
ge "$(json_int attached $O/boot.json)" 1 "boot report: attached > 0"
journalctl -b --no-pager -o cat -u ksymattach-boot.service > $O/boot-journal.txt
check "journal: the summary line says classic kprobes" grep -q "^boot $bid: .* (classic kprobes, no kprobe.multi on this kernel)" $O/boot-journal.txt
grep "^boot $bid" $O/boot-journal.txt | sed 's/^/# /'
check "the .prom says so" grep -q '^ksymattach_fallback_kprobes 1' /var/lib/prometheus/node-exporter/ksymattach.prom
cp /var/lib/prometheus/node-exporter/ksymattach.prom $O/ksymattach.prom
# classic kprobes: perf_event_open, which Debian's perf_event_paranoid=3 keeps to
# CAP_SYS_ADMIN; without it the run fails and names it
printf 'pattern = vfs_read\njson_dir = /tmp/caps\nprom_file =\n' > /tmp/caps.conf
mkdir -p /tmp/caps
systemd-run --wait --pipe --quiet -p NoNewPrivileges=yes \
	-p CapabilityBoundingSet="CAP_BPF CAP_PERFMON CAP_SYSLOG CAP_SYS_RAWIO" \
	/usr/sbin/ksymattach boot --no-cache --config /tmp/caps.conf > $O/caps.out 2>&1
rc=$?
check "capabilities: classic kprobes without CAP_SYS_ADMIN fail, naming it (rc $rc)" sh -c \
	"[ $rc -ne 0 ] && grep -q 'CAP_SYS_ADMIN' $O/caps.out"
grep ksymattach $O/caps.out | sed 's/^/# /'
check "daemon: active on classic kprobes" systemctl is-active --quiet ksymattach.service ||
	diag ksymattach.service
systemctl stop ksymattach.service
is "$(bpftool link show 2>/dev/null | grep -c perf_event)" 0 "stop: no kprobe link left"
# For the second boot (6.1-again.sh): this build's cache, handed over as on 6.12.
. ./fleet/handover.sh
