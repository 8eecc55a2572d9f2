# The fleet service on 6.12, second boot: the boot unit imports the build cache
# dropped in /var/lib/ksymattach/import on the first boot and measures a warm first
# run; then the package's stop and purge.
cd /host || exit 1
. ./lib.sh
O=/host/out
CONF=/etc/ksymattach/ksymattach.conf
STATE=/var/lib/ksymattach
PROM=/var/lib/prometheus/node-exporter/ksymattach.prom
bid=$(tr -d '-' < /proc/sys/kernel/random/boot_id)
bid1=$(cat $O/boot1-id)
echo "# guest $(uname -r), systemd $KSA_SYSTEM_STATE, second boot"
. ./fleet/again.sh
link_ids() { bpftool link show 2>/dev/null | awk -F: '/kprobe_multi/ { print $1 }' | sort; }
wait_until() {
	end=$(($(date +%s) + $1)); shift
	while ! "$@" 2>/dev/null; do
		[ "$(date +%s)" -lt $end ] || return 1
		sleep 0.5
	done
}
check "daemon: active on the second boot" wait_until 120 systemctl is-active --quiet ksymattach.service
# Stop: nothing left attached.
systemctl stop ksymattach.service
is "$(link_ids | grep -c .)" 0 "stop: no kprobe.multi link left"
check "stop: the journal says so" sh -c "journalctl -b -o cat -u ksymattach.service | grep -q 'stopped: everything detached'"
# Purge: everything gone.
dpkg --purge ksymattach > $O/purge.log 2>&1
is "$?" 0 "purge: dpkg --purge succeeds"
for f in $CONF $STATE $PROM /var/cache/ksymattach /lib/systemd/system/ksymattach.service /usr/sbin/ksymattach /run/ksymattach; do
	check "purge: $f is gone" [ ! -e $f ]
done
