# The fleet service on 6.1, second boot: the boot unit imports the dropped build
# cache; classic kprobes from it.
cd /host || exit 1
. ./lib.sh
O=/host/out
STATE=/var/lib/ksymattach
bid=$(tr -d '-' < /proc/sys/kernel/random/boot_id)
bid1=$(cat $O/boot1-id)
echo "# guest $(uname -r), systemd $KSA_SYSTEM_STATE, second boot"
. ./fleet/again.sh
check "second boot: classic kprobes stood in" grep -q '"fallback":true' $O/boot2.json
